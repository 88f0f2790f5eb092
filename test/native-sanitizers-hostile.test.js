// The hostile-server matrix (load-hostile.test.js) on the native transport's AddressSanitizer/
// UndefinedBehaviorSanitizer build (scripts/sanitize.sh): every path a misbehaving server drives the
// C code down, with memory errors and undefined behaviour made failures. Native runs only there
// (node:net never loads the addon). See native-sanitizers-io.test.js.
import { sanitizedTests } from './helper.js'

sanitizedTests('hostile', ['load-hostile.test.js'], 40)
