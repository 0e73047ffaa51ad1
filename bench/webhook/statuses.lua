-- webhook.lua, with the status of every answer counted, for the targets whose answer is to be a 401 or a 409:
-- wrk itself only counts answers >= 400, which cannot tell a 503 from the 401 the run asks for. Handing every
-- answer to Lua costs wrk time, hence not for the throughput targets.
--   wrk ... -s statuses.lua <url> -- <mode> <key> <user-agent>
-- At the end it prints one line "WRK_STATUSES {"401":1234,...}".
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "webhook.lua")

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

statuses = {}

function response(status)
  statuses[status] = (statuses[status] or 0) + 1
end

function done()
  local counts = {}
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get("statuses")) do counts[status] = (counts[status] or 0) + n end
  end
  local fields = {}
  for status, n in pairs(counts) do table.insert(fields, string.format('"%d":%d', status, n)) end
  io.write("WRK_STATUSES {" .. table.concat(fields, ",") .. "}\n")
end
