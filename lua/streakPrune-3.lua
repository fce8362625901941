--[[
  Removes lost streaks (expired before `now`) from a tenant's active ranking.

  KEYS[1] active lengths      <prefix>:{st:<tenant>}:active    zset member -> length (lua/streakRank-4.lua)
  KEYS[2] expiries            <prefix>:{st:<tenant>}:expiry    zset user -> ms the streak is lost
  KEYS[3] standing            <prefix>:{st:<tenant>}:u         hash user -> '<seq>|<active order>|<active
                                                               length>|<longest order>|<longest length>'

  ARGV[1] now, ms since the epoch
  ARGV[2] at most this many removals

  Returns the number of streaks removed.
]]
local activeKey = KEYS[1]
local expiryKey = KEYS[2]
local standingKey = KEYS[3]

local now = ARGV[1]
local limit = ARGV[2]

local lost = redis.call('ZRANGEBYSCORE', expiryKey, '-inf', '(' .. now, 'LIMIT', '0', limit)
if #lost == 0 then return 0 end
local held = redis.call('HMGET', standingKey, unpack(lost))
for i, userId in ipairs(lost) do
  local standing = held[i]
  if standing then
    local seq, order, _, rest = string.match(standing, '^([^|]*)|([^|]*)|([^|]*)|(.*)$')
    -- An empty order: the member written before members carried one, the user id itself.
    redis.call('ZREM', activeKey, order == '' and userId or order .. '|' .. userId)
    redis.call('HSET', standingKey, userId, seq .. '|||' .. rest)
  else
    redis.call('ZREM', activeKey, userId)
  end
end
redis.call('ZREM', expiryKey, unpack(lost))
return #lost
