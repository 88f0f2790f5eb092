// The built-in load generator (lib/load): what `syncbench run` uses unless --engine says otherwise.
import { loadtest } from '../../load/loadtest.js'

/** @type {import('./index.js').Engine} */
export const builtinEngine = {
  name: 'builtin',
  available: () => true,
  /**
   * @param {import('../../types.js').LoadOptions} options
   * @returns {Promise<import('../../types.js').LoadResult>}
   */
  run: (options) => loadtest(options)
}
