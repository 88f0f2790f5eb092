// The hostile-server matrix (load-hostile.test.js) on the native transport's AddressSanitizer/
// UndefinedBehaviorSanitizer build (scripts/sanitize.sh): every path a misbehaving server drives the
// C code down, with memory errors and undefined behaviour made failures; native runs only there
// (node:net never loads the addon). Half of its tests here, with the engine's; the other half in
// native-sanitizers-hostile-b.test.js (npm test bounds each file's time). See native-sanitizers-io.test.js.
import { sanitizedTests } from './helper.js'

sanitizedTests('hostile-a', ['load-hostile.test.js', 'load-engine.test.js'], 40, { SYNCBENCH_HOSTILE_SHARD: '0/2' })
