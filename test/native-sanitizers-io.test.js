// The native transport's own tests and the engine's on its AddressSanitizer/UndefinedBehaviorSanitizer
// build (scripts/sanitize.sh): a memory error in C can pass every other test (a write past a buffer
// that nothing reads back, a use after free that finds the memory unchanged); the sanitizers make it
// a failure with its stack. The hostile matrix and the transport fuzz run so in the two other
// native-sanitizers-*.test.js files (npm test bounds each file's time).
import { sanitizedTests } from './helper.js'

sanitizedTests('io', ['load-native-io.test.js', 'load-engine.test.js'], 30)
