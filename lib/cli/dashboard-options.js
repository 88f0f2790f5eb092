// The dashboard's flags (--dashboard, --dashboard-port, --dashboard-host) as syncbench run reads them:
// apart from the dashboard itself (lib/cli/dashboard.js), so that parsing them loads no server.
import { invalidOption } from '../errors.js'
import { integerOption } from '../args.js'

/** The address the dashboard listens on unless --dashboard-host says otherwise. */
export const DASHBOARD_HOST = '127.0.0.1'

/**
 * The dashboard's flags as parseArgs read them (--dashboard, --dashboard-port, --dashboard-host), checked:
 * a port or host without --dashboard is refused rather than ignored.
 * @param {{ dashboard?: boolean|string|(boolean|string)[], 'dashboard-port'?: boolean|string|(boolean|string)[], 'dashboard-host'?: boolean|string|(boolean|string)[] }} values
 * @returns {{ dashboard: boolean, dashboardPort: number, dashboardHost: string }}
 */
export function dashboardOptions (values) {
  const dashboard = values.dashboard === true
  const rawPort = values['dashboard-port']
  const rawHost = values['dashboard-host']
  for (const [flag, raw] of /** @type {const} */ ([['--dashboard-port', rawPort], ['--dashboard-host', rawHost]])) {
    if (raw !== undefined && !dashboard) throw invalidOption(flag, String(raw), 'applies to --dashboard only')
  }
  const dashboardPort = integerOption('--dashboard-port', typeof rawPort === 'string' ? rawPort : undefined, 0, 65535) ?? 0
  if (typeof rawHost === 'string' && (rawHost === '' || /[\s/]/.test(rawHost))) throw invalidOption('--dashboard-host', rawHost, 'must be an IP address or host name of this machine')
  return { dashboard, dashboardPort, dashboardHost: typeof rawHost === 'string' ? rawHost : DASHBOARD_HOST }
}
