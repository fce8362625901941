--[[
  The metric-event workload, the same bytes for every variant (bench/README.md):

    POST <url path>    e.g. /api/metrics/lessons/event
    X-API-KEY: <key>   Content-Type: application/json
    {"user":{"id":"user-<n>"},"value":1}      n uniform over `users`

  A share of requests (`idemShare`, 0.1) carries an Idempotency-Key drawn from a pool of
  `idemPool` keys. Each pool entry is bound to one user, because laurel scopes a key to
  (tenant, user, metric): drawing the pair again is a replay (HTTP 202), so both the 201 and the
  202 path are loaded.

  Arguments (after `--`): apiKey users idemShare idemPool runTag [userPrefix]
  (userPrefix, 'user-' unless given: the users' ids are '<userPrefix><n>')
  Output: done() prints one line `BENCH_RESULT {json}` with counts, status codes and latency
  percentiles in microseconds; the runner parses that line, not wrk's text summary.
]]

-- setup(), response() and done(): the report every bench script gives (bench/wrk/results.lua, beside this one).
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "results.lua")

-- Per-thread state. Strings that never change are built once, not per request.
local apiKey, users, idemShare, idemPool, runTag, userPrefix
local path, bodyHead, bodyTail

function init(args)
  apiKey = args[1] or ""
  users = tonumber(args[2] or "100000")
  idemShare = tonumber(args[3] or "0.1")
  idemPool = tonumber(args[4] or "20000")
  runTag = args[5] or "bench"
  userPrefix = args[6] or "user-"
  path = wrk.path
  bodyHead = '{"user":{"id":"' .. userPrefix
  bodyTail = '"},"value":1}'
  math.randomseed(os.time() * 1000 + (threadId or 0) * 7919)
end

function request()
  local headers = {
    ["Content-Type"] = "application/json",
    ["X-API-KEY"] = apiKey,
  }
  local n
  if math.random() < idemShare then
    local j = math.random(0, idemPool - 1)
    -- 7919 is prime and coprime with 100,000: pool entries land on distinct, spread-out users.
    n = (j * 7919) % users
    headers["Idempotency-Key"] = runTag .. "-" .. j
  else
    n = math.random(0, users - 1)
  end
  return wrk.format("POST", path, headers, bodyHead .. n .. bodyTail)
end
