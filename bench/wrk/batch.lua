--[[
  The batch workload (bench/README.md, `laurel-batch`): the metric-event workload of event.lua,
  `size` events a request, through the Admin API's batch:

    POST /admin/v1/metrics/events
    X-API-KEY: <key>   Content-Type: application/json
    [{"key":"lessons","user":{"id":"user-<n>"},"value":1}, ...]      n uniform over `users`

  A share of the events (`idemShare`) carries an idempotencyKey drawn from a pool of `idemPool`
  keys, each bound to one user, as event.lua's Idempotency-Key: the same mix of first uses and
  replays, item by item.

  With `perUser` above 1 (`laurel-batch-minute`), a batch is a minute of an app's traffic: its
  items come from size / perUser users drawn uniformly for the request, each item from one of
  them (uniformly), so a user sends perUser events a batch on average; an item with a key takes
  one of ten of its user's ('<runTag>-u<n>-<0..9>'), used again within and across batches.

  Arguments (after `--`): apiKey users idemShare idemPool runTag size perUser
  Output: done() prints `BENCH_RESULT {json}` as event.lua's, counting requests (batches); the
  runner counts each as `size` events.
]]

-- setup(), response() and done(): the report every bench script gives (bench/wrk/results.lua, beside this one).
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "results.lua")

local apiKey, users, idemShare, idemPool, runTag, size, perUser
local path, headers

function init(args)
  apiKey = args[1] or ""
  users = tonumber(args[2] or "100000")
  idemShare = tonumber(args[3] or "0.1")
  idemPool = tonumber(args[4] or "20000")
  runTag = args[5] or "bench"
  size = tonumber(args[6] or "500")
  perUser = tonumber(args[7] or "1")
  path = wrk.path
  headers = { ["Content-Type"] = "application/json", ["X-API-KEY"] = apiKey }
  math.randomseed(os.time() * 1000 + (threadId or 0) * 7919)
end

function request()
  local items = {}
  if perUser > 1 then
    local active = {}
    for j = 1, math.max(1, math.floor(size / perUser)) do active[j] = math.random(0, users - 1) end
    for i = 1, size do
      local n = active[math.random(1, #active)]
      local key = ''
      if math.random() < idemShare then key = ',"idempotencyKey":"' .. runTag .. '-u' .. n .. '-' .. math.random(0, 9) .. '"' end
      items[i] = '{"key":"lessons","user":{"id":"user-' .. n .. '"},"value":1' .. key .. '}'
    end
    return wrk.format("POST", path, headers, "[" .. table.concat(items, ",") .. "]")
  end
  for i = 1, size do
    local n
    local key = ''
    if math.random() < idemShare then
      local j = math.random(0, idemPool - 1)
      n = (j * 7919) % users
      key = ',"idempotencyKey":"' .. runTag .. '-' .. j .. '"'
    else
      n = math.random(0, users - 1)
    end
    items[i] = '{"key":"lessons","user":{"id":"user-' .. n .. '"},"value":1' .. key .. '}'
  end
  return wrk.format("POST", path, headers, "[" .. table.concat(items, ",") .. "]")
end
