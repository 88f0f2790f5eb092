// The argv helpers live in lib/args.js, below every layer, because the server child parses
// `syncbench serve` options as well (lib/lab/serve-args.js).
export { parseCommandArgs, integerOption } from '../args.js'
