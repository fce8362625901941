--[[
  Notes what a worker did with items of a batch (src/engine/batches/process.ts): the items
  processed (their bits set) and those that failed (`f:<index>` -> message). Written again, a note
  changes nothing, so a chunk taken again after a worker died is counted once. The batch's record
  is written too where it is missing (a restore that queued chunks again), and both keys expire
  with the batch.

  KEYS[1] record          <prefix>:{b:<batch id>}     hash: n items, t tenant, at accepted (ms), x
                                                      when forgotten (wall ms), f:<index> -> message
  KEYS[2] processed       <prefix>:{b:<batch id>}:d   bitmap: bit <index> set once processed

  ARGV[1] items in the batch
  ARGV[2] tenant
  ARGV[3] accepted (ms)
  ARGV[4] when the batch is forgotten (wall ms, absolute)
  ARGV[5] the number of processed indexes that follow
  ARGV[6...] the processed indexes, then pairs: a failed index, its message

  Returns 1.
]]
local record, done = KEYS[1], KEYS[2]

if redis.call('EXISTS', record) == 0 then
  redis.call('HSET', record, 'n', ARGV[1], 't', ARGV[2], 'at', ARGV[3], 'x', ARGV[4])
  redis.call('PEXPIREAT', record, ARGV[4])
end
local processed = tonumber(ARGV[5])
if processed > 0 then
  for i = 6, 5 + processed do redis.call('SETBIT', done, ARGV[i], 1) end
  redis.call('PEXPIREAT', done, ARGV[4])
end
for i = 6 + processed, #ARGV, 2 do redis.call('HSET', record, 'f:' .. ARGV[i], ARGV[i + 1]) end
return 1
