// A piscina worker: runs a lab workload's synchronous function off the main thread.
import { workloads } from './workloads.js'

/** @param {{ workload: string, params: Record<string, any> }} task */
export default function run ({ workload, params }) {
  return workloads[workload].sync(params)
}
