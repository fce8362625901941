--[[
  A pass of the workers that joined an erasure (lua/erasureJoin-1.lua) leaves it with what it
  removed added to the counts, at once: the last pass to leave marks the erasure done and forgets
  the user (its id and profile), so a done erasure's counts are final. A pass noted longer ago than ARGV[3] allows
  stopped on its way (its process died): it holds nothing back, and its note goes.

  KEYS[1] <prefix>:{er:<erasure id>}   hash: the erasure's record

  ARGV[1] the pass's id
  ARGV[2] now (ms)
  ARGV[3] how long a pass may take (ms)
  ARGV[4..7] redis keys, redis members, archived entries, postgres rows removed by the pass

  Returns 1 when the erasure is done, 0 while another pass is still on it (or there is no record).
]]
local record = KEYS[1]
local now = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
if redis.call('HEXISTS', record, 't') == 0 then return 0 end
redis.call('HDEL', record, 'w:' .. ARGV[1])
local counts = {'rk', 'rm', 'pa', 'pr'}
for i = 1, 4 do redis.call('HINCRBY', record, counts[i], ARGV[3 + i]) end
if redis.call('HGET', record, 's') == 'done' then return 1 end
local fields = redis.call('HGETALL', record)
local others = 0
for i = 1, #fields, 2 do
  if string.sub(fields[i], 1, 2) == 'w:' then
    if now - tonumber(fields[i + 1]) > limit then redis.call('HDEL', record, fields[i]) else others = others + 1 end
  end
end
if others > 0 then return 0 end
redis.call('HSET', record, 's', 'done', 'done', ARGV[2])
redis.call('HDEL', record, 'u', 'n')
return 1
