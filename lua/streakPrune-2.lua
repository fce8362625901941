--[[
  Removes lost streaks (expired before `now`) from a tenant's active ranking.

  KEYS[1] active lengths      <prefix>:{st:<tenant>}:active
  KEYS[2] expiries            <prefix>:{st:<tenant>}:expiry

  ARGV[1] now, ms since the epoch
  ARGV[2] at most this many removals

  Returns the number of streaks removed.
]]
local activeKey = KEYS[1]
local expiryKey = KEYS[2]

local now = ARGV[1]
local limit = ARGV[2]

local lost = redis.call('ZRANGEBYSCORE', expiryKey, '-inf', '(' .. now, 'LIMIT', '0', limit)
if #lost == 0 then return 0 end
redis.call('ZREM', activeKey, unpack(lost))
redis.call('ZREM', expiryKey, unpack(lost))
return #lost
