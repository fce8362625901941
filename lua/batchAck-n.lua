--[[
  A worker is done with chunks of a partition's batch queue (src/engine/batches/process.ts): each
  item applied, or failed and noted. The chunks leave the queue, its count goes down by their
  items, and the idempotency keys the items without one of their own were applied with
  (src/domain/batches.ts itemKey) are deleted, all at once: a chunk still queued has its keys, so
  taking it again applies none of its items twice. Only while the worker holds the queue's lease: a
  worker whose lease ran out (another took the queue) changes nothing, and the other acknowledges
  the chunks once it has taken them again.

  Called with its number of keys first (3 and one per item key below).
  KEYS[1] batch queue     <prefix>:{p<N>}:bq
  KEYS[2] queue count     <prefix>:{p<N>}:bqn
  KEYS[3] lease           <prefix>:{p<N>}:bql
  KEYS[4...] the user-metric hashes of the partition (<prefix>:{p<N>}:um:...) holding the items' own
          keys, one per key deleted

  ARGV[1] the worker's id
  ARGV[2] the number of items the chunks hold
  ARGV[3] the number of queue entry ids that follow
  ARGV[4...] the chunks' queue entry ids, then for each of KEYS[4...] in order the field of the
          item's own key ('i:' .. itemKey)

  Returns 1 when done, 0 when the worker no longer holds the lease (nothing changed).
]]
local queue, count, lease = KEYS[1], KEYS[2], KEYS[3]

if redis.call('GET', lease) ~= ARGV[1] then return 0 end
local ids = tonumber(ARGV[3])
for i = 4, 3 + ids do redis.call('XDEL', queue, ARGV[i]) end
redis.call('DECRBY', count, ARGV[2])
for k = 4, #KEYS do redis.call('HDEL', KEYS[k], ARGV[ids + k]) end
return 1
