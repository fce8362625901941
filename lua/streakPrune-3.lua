--[[
  Removes lost streaks (expired before `now`) from a tenant's active ranking.

  KEYS[1] active lengths      <prefix>:{st:<tenant>}:active    zset member -> length (lua/streakRank-6.lua)
  KEYS[2] expiries            <prefix>:{st:<tenant>}:expiry    zset user -> ms the streak is lost
  KEYS[3] active members      <prefix>:{st:<tenant>}:am        hash user -> member in KEYS[1]

  ARGV[1] now, ms since the epoch
  ARGV[2] at most this many removals

  Returns the number of streaks removed.
]]
local activeKey = KEYS[1]
local expiryKey = KEYS[2]
local membersKey = KEYS[3]

local now = ARGV[1]
local limit = ARGV[2]

local lost = redis.call('ZRANGEBYSCORE', expiryKey, '-inf', '(' .. now, 'LIMIT', '0', limit)
if #lost == 0 then return 0 end
local members = redis.call('HMGET', membersKey, unpack(lost))
for i, userId in ipairs(lost) do
  -- A member written before members carried an order is the user id itself.
  redis.call('ZREM', activeKey, members[i] or userId)
end
redis.call('HDEL', membersKey, unpack(lost))
redis.call('ZREM', expiryKey, unpack(lost))
return #lost
