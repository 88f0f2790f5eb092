-- syncbench's wrk script (lib/run/tools/wrk.js): wrk runs for a duration, syncbench runs count
-- requests, so the single thread says "syncbench:done" on stderr after SB_REQUESTS responses and the
-- adapter answers with SIGINT, on which wrk prints its summary; done() adds it as one JSON line.
local limit = tonumber(os.getenv("SB_REQUESTS") or "1")
local count = 0
function response(status, headers, body)
  count = count + 1
  if count == limit then
    io.stderr:write("syncbench:done\n")
    io.stderr:flush()
    wrk.thread:stop()
  end
end
function done(summary, latency, requests)
  local p = {}
  for _, q in ipairs({ 50, 66, 75, 80, 90, 95, 98, 99 }) do
    table.insert(p, string.format('"%d":%d', q, latency:percentile(q)))
  end
  io.write(string.format('\nSYNCBENCH-JSON {"requests":%d,"durationUs":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,' ..
    '"meanUs":%f,"stdevUs":%f,"minUs":%d,"maxUs":%d,"percentilesUs":{%s}}\n',
    summary.requests, summary.duration, summary.bytes, summary.errors.connect, summary.errors.read, summary.errors.write,
    summary.errors.status, summary.errors.timeout, latency.mean, latency.stdev, latency.min, latency.max, table.concat(p, ",")))
end
