// The built-in load generator (lib/load): what `syncbench run` uses unless --engine says otherwise.
import { loadtest } from '../../load/loadtest.js'

/** @type {import('../tools.js').LoadTool} */
export const builtinTool = {
  name: 'builtin',
  available: () => true,
  /**
   * @param {import('../../types.js').LoadOptions} options
   * @returns {Promise<import('../../types.js').LoadResult>}
   */
  run: (options) => loadtest(options)
}
