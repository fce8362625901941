--[[
  A pass of the workers joins an erasure it is about to finish (src/engine/erasure/pass.ts):
  its id and the time noted on the record, unless the erasure is done already or gone.

  KEYS[1] <prefix>:{er:<erasure id>}   hash: the erasure's record

  ARGV[1] the pass's id
  ARGV[2] now (ms)

  Returns 1 when joined, 0 when the erasure is done or there is none.
]]
local record = KEYS[1]
if redis.call('HEXISTS', record, 't') == 0 or redis.call('HGET', record, 's') == 'done' then return 0 end
redis.call('HSET', record, 'w:' .. ARGV[1], ARGV[2])
return 1
