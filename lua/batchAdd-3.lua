--[[
  Accepts a batch's items of one partition (src/domain/batches.ts): the chunk is appended to the
  partition's batch queue, which the workers consume, and to its event log as a `batch` entry
  (archived by the log drain, so a restore queues again what Redis lost); the queue's item count
  grows by the chunk's. All three in the partition's slot, in one step: a chunk is in both or in
  neither.

  KEYS[1] batch queue     <prefix>:{p<N>}:bq    stream: 'c' -> the chunk (JSON), 'n' -> its items
  KEYS[2] queue count     <prefix>:{p<N>}:bqn   the items in the queue
  KEYS[3] event log       <prefix>:{p<N>}:log

  ARGV[1] the chunk (JSON)
  ARGV[2] its number of items

  Returns the queue entry's id (the log entry has it as its field 'q').
]]
local queue, count, log = KEYS[1], KEYS[2], KEYS[3]

--- @include "logAdd"

local id = redis.call('XADD', queue, '*', 'c', ARGV[1], 'n', ARGV[2])
redis.call('INCRBY', count, ARGV[2])
logAdd(log, 'batch', ARGV[1], 'q', id)
return id
