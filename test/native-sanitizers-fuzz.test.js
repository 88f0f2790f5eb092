// The transport fuzz (load-transport-fuzz.test.js) on the native transport's AddressSanitizer/
// UndefinedBehaviorSanitizer build (scripts/sanitize.sh): sequences of server behaviours nobody wrote,
// on one transport that lives across runs, with memory errors and undefined behaviour made failures.
// See native-sanitizers-io.test.js.
import { sanitizedTests } from './helper.js'

sanitizedTests('fuzz', ['load-transport-fuzz.test.js'], 150)
