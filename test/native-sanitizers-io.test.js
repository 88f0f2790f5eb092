// The native transport's own tests on its AddressSanitizer/UndefinedBehaviorSanitizer
// build (scripts/sanitize.sh): a memory error in C can pass every other test (a write past a buffer
// that nothing reads back, a use after free that finds the memory unchanged); the sanitizers make it
// a failure with its stack. The hostile matrix, the transport fuzz, the misbehaving-server matrix and
// the engine's tests run so in the other native-sanitizers-*.test.js files (npm test bounds each
// file's time).
import { sanitizedTests } from './helper.js'

sanitizedTests('io', ['load-native-io.test.js'], 15)
