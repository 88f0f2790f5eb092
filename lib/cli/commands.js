import { version } from '../version.js'

export { version }

/**
 * Each command lives in its own module, loaded only when used so `syncbench ab` never pays for
 * the lab's or the report's dependencies. A command module exports
 * `main(argv: string[], io: Io): Promise<number>` and handles its own `--help`.
 * @type {Record<string, { summary: string, load: () => Promise<{ main: (argv: string[], io: import('./output.js').Io) => Promise<number> }> }>}
 */
export const commands = {
  run: { summary: 'the seed experiments (or any experiment), a fresh server per run', load: () => import('./run.js') },
  ab: { summary: 'an Apache Bench drop-in load generator: same flags, same report', load: () => import('./ab.js') },
  serve: { summary: 'start the seed apps or the lab server of workloads x strategies', load: () => import('./serve.js') },
  report: { summary: 'charts, summary.md and report.html from a results.json', load: () => import('./report.js') },
  merge: { summary: 'add up syncbench ab --json results (shards): exact merged percentiles', load: () => import('./merge.js') },
  predict: { summary: 'a run\'s req/s on another machine shape, and what bounds it', load: () => import('./predict.js') },
  scan: { summary: 'your app\'s routes, each loaded alone, ranked by how much it blocks', load: () => import('./scan.js') },
  compare: { summary: 'two results side by side: ratio CIs, t-tests, a CI gate', load: () => import('./compare.js') }
}

export function topLevelHelp () {
  const width = Math.max(...Object.keys(commands).map((k) => k.length))
  const list = Object.entries(commands).map(([k, c]) => `  ${k.padEnd(width)}  ${c.summary}`).join('\n')
  return `syncbench ${version}: what do sync, async, fake-async and worker-pool handlers
cost a Node.js HTTP server?

Usage: syncbench <command> [options]

Commands:
${list}

Options:
  -h, --help     show this help (syncbench <command> --help: its options)
  -V, --version  print the version

npm start is \`syncbench run\`: the seed experiments, on this machine.
`
}
