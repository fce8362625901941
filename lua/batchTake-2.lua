--[[
  A worker takes the first chunks of a partition's batch queue (src/engine/batches/process.ts),
  under a lease: while another worker holds the queue, nothing (its chunks are applied in order,
  by one worker at a time, so a user's items keep their order). At most `count` chunks, and no more
  once they hold `items` items (the first chunk is taken whatever it holds): a pass of a partition
  stays well within the lease. Taking renews the lease; an empty queue releases it. With a count of
  0, releases the lease when this worker holds it (a worker that stops).

  KEYS[1] batch queue     <prefix>:{p<N>}:bq    stream: 'c' -> a chunk (JSON), 'n' -> its items
  KEYS[2] lease           <prefix>:{p<N>}:bql   the worker holding the queue

  ARGV[1] the worker's id
  ARGV[2] the lease's length (ms)
  ARGV[3] chunks to take, at most
  ARGV[4] items to take, at most (but the first chunk's)

  Returns -16 when another worker holds the lease, else the entries taken (XRANGE's answer; none
  when the queue is empty).
]]
local queue, lease = KEYS[1], KEYS[2]
local worker, leaseMs, count, most = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4] or '0')

local holder = redis.call('GET', lease)
if holder and holder ~= worker then return -16 end
if count == '0' then
  if holder then redis.call('DEL', lease) end
  return {}
end
local entries = redis.call('XRANGE', queue, '-', '+', 'COUNT', count)
if #entries == 0 then
  if holder then redis.call('DEL', lease) end
  return entries
end
redis.call('SET', lease, worker, 'PX', leaseMs)
local items, taken = 0, {}
for i, entry in ipairs(entries) do
  local fields = entry[2]
  local n = 0
  for f = 1, #fields, 2 do if fields[f] == 'n' then n = tonumber(fields[f + 1]) or 0 end end
  if i > 1 and items + n > most then break end
  items = items + n
  taken[i] = entry
end
return taken
