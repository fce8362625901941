--[[
  What a bench wrk script reports (loaded by bench/wrk/event.lua, batch.lua and steady.lua): each
  thread's responses counted by status, and done() printing one line `BENCH_RESULT {json}` with the counts, the status codes
  and the latency percentiles in microseconds, which bench/wrk.ts parses (not wrk's text summary).
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

statuses = {}

-- Counting by status is what tells 201 from 202 and shows any 4xx/5xx; wrk itself only counts
-- statuses above 399. A batch refused because too many items wait for the workers (503
-- batch_backlog_full, the backlog gate's designed answer to a sender faster than the workers) is
-- counted apart, as "503:batch_backlog_full" (bench/wrk.ts BACKLOG_FULL), from any other 503.
function response(status, headers, body)
  local key = status
  if status == 503 and body ~= nil and string.find(body, '"batch_backlog_full"', 1, true) then
    key = "503:batch_backlog_full"
  end
  statuses[key] = (statuses[key] or 0) + 1
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
