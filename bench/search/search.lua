-- wrk script for the wiki search bench: the same POST with a fixed JSON body on every request, or with the
-- body file `-` the same GET (GET /wiki/suggest?q=...).
--   wrk ... -s search.lua <url> -- <path> <body-file | -> [<authorization> <x-service-groups>]
-- At the end it prints one line "WRK_JSON {...}" with counts and latency percentiles in µs. `degraded`: answers
-- with a status below 400 that say `"degraded":true` (the service's answer while Elasticsearch fails: 200, empty),
-- which wrk itself would count as successes (bench/search/answer.ts says the same in TypeScript).
local prepared
local threads = {}
degraded = 0

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  local headers = {}
  if args[3] then headers["Authorization"] = args[3] end
  if args[4] then headers["X-Service-Groups"] = args[4] end
  if args[2] == "-" then
    prepared = wrk.format("GET", args[1], headers)
    return
  end
  local file = assert(io.open(args[2], "rb"))
  local body = file:read("*a")
  file:close()
  headers["Content-Type"] = "application/json"
  prepared = wrk.format("POST", args[1], headers, body)
end

function request()
  return prepared
end

function response(status, headers, body)
  if status < 400 and body and string.find(body, '"degraded":true', 1, true) then degraded = degraded + 1 end
end

function done(summary, latency, requests)
  local e = summary.errors
  local total_degraded = 0
  for _, thread in ipairs(threads) do total_degraded = total_degraded + (thread:get("degraded") or 0) end
  io.write(string.format(
    'WRK_JSON {"requests":%d,"duration_us":%d,"non2xx":%d,"degraded":%d,"socket_errors":%d,"p50_us":%d,"p99_us":%d}\n',
    summary.requests, summary.duration, e.status, total_degraded, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
