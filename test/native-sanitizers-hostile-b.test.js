// The other half of the hostile-server matrix (load-hostile.test.js) on the native transport's
// AddressSanitizer/UndefinedBehaviorSanitizer build, with the misbehaving-server matrix
// (load-matrix.test.js, in-process loads). See native-sanitizers-hostile-a.test.js.
import { sanitizedTests } from './helper.js'

sanitizedTests('hostile-b', ['load-hostile.test.js', 'load-matrix.test.js'], 60, { SYNCBENCH_HOSTILE_SHARD: '1/2' })
