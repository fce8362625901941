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

local threads = {}
local threadCount = 0

-- Runs in the main Lua state, once per thread: remember the thread (done() reads its counters)
-- and give it an id so each thread seeds its own random sequence.
function setup(thread)
  threadCount = threadCount + 1
  thread:set("threadId", threadCount)
  table.insert(threads, thread)
end

-- Per-thread state. Strings that never change are built once, not per request.
local apiKey, users, idemShare, idemPool, runTag, userPrefix
local path, bodyHead, bodyTail
statuses = {}

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

-- Counting by status is what tells 201 from 202 and shows any 4xx/5xx; wrk itself only counts
-- statuses above 399.
function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

local function jsonObject(t)
  local parts = {}
  for k, v in pairs(t) do
    parts[#parts + 1] = string.format('"%s":%d', tostring(k), v)
  end
  return "{" .. table.concat(parts, ",") .. "}"
end

function done(summary, latency, requests)
  local merged = {}
  for _, thread in ipairs(threads) do
    local counts = thread:get("statuses") or {}
    for status, n in pairs(counts) do
      merged[status] = (merged[status] or 0) + n
    end
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"durationUs":%d,"requests":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latencyUs":{"p50":%d,"p90":%d,"p99":%d,"p999":%d,"mean":%.1f,"stdev":%.1f,"max":%d},' ..
    '"statuses":%s}\n',
    summary.duration, summary.requests, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9),
    latency.mean, latency.stdev, latency.max,
    jsonObject(merged)))
end
