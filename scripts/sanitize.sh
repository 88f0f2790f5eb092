#!/usr/bin/env bash
# The native transport (native/io.c) under AddressSanitizer and UndefinedBehaviorSanitizer: build it
# with both (build-sanitize/syncbench_io.node), then run the tests that drive it with that build
# (SYNCBENCH_ADDON, SYNCBENCH_IO=native) and the sanitizers' runtimes preloaded into node and every
# process it starts (node is not built with them; ASan's runtime must come first, hence LD_PRELOAD).
# Any report fails: abort_on_error turns it into SIGABRT of its process (a test then fails on the
# signal). ASan's text goes to a log file per process, printed here at the end; UBSan's goes to its
# process's stderr (built with ASan it ignores log_path), which the tests print with their failure
# (a test file's own stderr: the spec reporter). The test/native-sanitizers-*.test.js files run this in
# `npm test`, the tests split among them (npm test bounds each file's time).
#
# Usage: scripts/sanitize.sh [--out dir] [test files...]
#   --out: where the build, the logs and the TAP record go (default build-sanitize; test files that run
#   at once use one each); test files: default, the native transport's tests (below)
# Needs: a C compiler with the sanitizers' runtimes (gcc: libasan, libubsan; CC picks another) and
# the headers of the node that runs it, beside it (<prefix>/include/node; nothing is downloaded).
# Exit: 0 clean, 1 a test failed or a sanitizer reported, 2 the build could not be made.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

cc="${CC:-gcc}"
out="$root/build-sanitize"
if [ "${1:-}" = "--out" ]; then
  out="$(mkdir -p "$2" && cd "$2" && pwd)"
  shift 2
fi
include="$(dirname "$(command -v node)")/../include/node"
if ! command -v "$cc" >/dev/null 2>&1; then
  echo "sanitize: no C compiler ($cc): install gcc, or set CC" >&2
  exit 2
fi
if [ ! -f "$include/node_api.h" ] || [ ! -f "$include/uv.h" ]; then
  echo "sanitize: no Node.js headers beside $(command -v node) ($include/node_api.h, uv.h)" >&2
  exit 2
fi

mkdir -p "$out"
rm -rf "$out/logs"
mkdir "$out/logs"
# -O1 keeps the stacks readable and the run fast; -fno-sanitize-recover makes UBSan's first report
# fatal, as ASan's is
"$cc" -shared -fPIC -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1 \
  -Wall -Wextra -I"$include" -o "$out/syncbench_io.node" native/io.c || exit 2

asan="$("$cc" -print-file-name=libasan.so)"
ubsan="$("$cc" -print-file-name=libubsan.so)"
for lib in "$asan" "$ubsan"; do
  if [ ! -f "$lib" ]; then
    echo "sanitize: $cc has no $(basename "$lib") (Debian: libasan and libubsan come with gcc)" >&2
    exit 2
  fi
done

if [ "$#" -eq 0 ]; then
  set -- test/load-native-io.test.js test/load-hostile.test.js test/load-transport-fuzz.test.js \
    test/load-matrix.test.js test/load-engine.test.js
fi

# detect_leaks=0: Node leaves memory to the exit on purpose. allow_user_segv_handler=0: a SIGSEGV
# gets ASan's report with its stack rather than Node's plain crash (V8's handler for WebAssembly's
# bounds traps is refused meanwhile; nothing on these paths runs WebAssembly).
# SYNCBENCH_SANITIZE=1 leaves out what never loads the addon (the node:net halves of the hostile
# matrix, load-native-io.test.js's rerun of other files on node:net).
# (a test runner's child marks its environment so that a nested `node --test` runs nothing: unmark it)
unset NODE_TEST_CONTEXT
status=0
LD_PRELOAD="$asan $ubsan" \
ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:allow_user_segv_handler=0:log_path=$out/logs/asan" \
UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1:log_path=$out/logs/ubsan" \
SYNCBENCH_ADDON="$out/syncbench_io.node" SYNCBENCH_IO=native SYNCBENCH_SANITIZE=1 \
  node --test --test-timeout=300000 --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=tap --test-reporter-destination="$out/tap.txt" "$@" || status=1
# the count, so that a caller sees the tests did run
echo "sanitize: $(grep -E '^# (tests|pass|fail|skipped) ' "$out/tap.txt" | sed 's/^# //' | paste -sd, - | sed 's/,/, /g')"

reports="$(find "$out/logs" -type f | sort)"
if [ -n "$reports" ]; then
  for f in $reports; do
    echo "== $f"
    cat "$f"
  done
  echo "sanitize: $(echo "$reports" | wc -l) sanitizer report(s), above" >&2
  exit 1
fi
exit "$status"
