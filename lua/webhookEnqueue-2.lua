--[[
  Puts an endpoint's deliveries of drained log entries in its queue (src/engine/webhooks/queue.ts),
  each entry's once: the marks say, per partition, the last entry the queue took, and a delivery of
  an entry at or before its partition's mark is skipped. A drain made again (a pass whose archive
  another drainer wrote first, a process that died before its archive committed) reads the same
  entries after the same cursor, so its deliveries are skipped whole; the deliveries of one entry
  always come in one call, so two of them never fall on either side of a mark.

  KEYS[1] <prefix>:{whq:<endpoint>}:q    stream: the deliveries waiting, consumer group ARGV[1]
  KEYS[2] <prefix>:{whq:<endpoint>}:hw   hash: partition -> the last entry taken (sortable id)

  ARGV[1] the consumer group's name
  ARGV    then, repeated, 3 for each delivery, the entries of a partition in log order:
          partition, entry id (sortable: fixed width, so strings compare as entries), the delivery
          (the stream entry's one field, `d`: src/engine/webhooks/queue.ts packs it)

  Returns the number of deliveries queued.
]]
local queue, marks = KEYS[1], KEYS[2]
local group = ARGV[1]

if redis.call('EXISTS', queue) == 0 then redis.call('XGROUP', 'CREATE', queue, group, '0', 'MKSTREAM') end
-- The marks as this call found them, and the last entry it takes of each partition.
local was, last = {}, {}
local queued = 0
for i = 2, #ARGV, 3 do
  local partition, entry = ARGV[i], ARGV[i + 1]
  local mark = was[partition]
  if mark == nil then
    mark = redis.call('HGET', marks, partition) or ''
    was[partition] = mark
  end
  if entry > mark then
    redis.call('XADD', queue, '*', 'd', ARGV[i + 2])
    queued = queued + 1
    if last[partition] == nil or entry > last[partition] then last[partition] = entry end
  end
end
for partition, entry in pairs(last) do redis.call('HSET', marks, partition, entry) end
return queued
