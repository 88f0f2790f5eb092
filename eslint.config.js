import neostandard from 'neostandard'

export default [
  ...neostandard({ ignores: ['results/**', '.cache/**', 'node_modules/**', 'types/**', '.ci/nodes/**'], ts: true })
]
