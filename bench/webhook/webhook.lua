-- wrk script for the webhook intake: every request gets the current Unix time
-- in seconds and, unless the mode says otherwise, a fresh event id.
--   wrk ... -s webhook.lua <url> -- <mode> <key> <user-agent>
--   mode: fresh     a new event id per request (accepted events)
--         same      one event id for every request (409 duplicates after the first)
-- The request is a prebuilt string with only id and timestamp spliced in, so
-- that wrk (one thread) spends as little as possible per request.
local mode, counter, prefix = "fresh", 0, ""
local before_id, before_timestamp, tail

function init(args)
  mode = args[1] or mode
  local key = args[2] or "none"
  local agent = args[3] or "service-eventhandler/1.0"
  local body = '{"username":"bench-user","kind":"bench"}'
  -- distinct per thread and per run, so that ids never repeat across threads or runs
  prefix = string.format("%x-%x-", os.time(), math.random(0, 0x7fffffff))
  before_id = "POST /edu-api/webhook HTTP/1.1\r\n"
    .. "Host: " .. wrk.host .. ":" .. wrk.port .. "\r\n"
    .. "x-webhook-key: " .. key .. "\r\n"
    .. "User-Agent: " .. agent .. "\r\n"
    .. "Content-Type: application/json\r\n"
    .. "Content-Length: " .. #body .. "\r\n"
    .. "x-webhook-event-id: "
  before_timestamp = "\r\nx-webhook-timestamp: "
  tail = "\r\n\r\n" .. body
end

function request()
  counter = counter + 1
  local id = mode == "same" and "bench-duplicate" or (prefix .. counter)
  return before_id .. id .. before_timestamp .. os.time() .. tail
end
