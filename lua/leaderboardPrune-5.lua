--[[
  Removes from a streak board's run the users whose streak is lost by now (each placement records
  when the user's streak expires if nothing happens); their next extension places them again.

  KEYS[1] ranking                <prefix>:{lb:...}:r
  KEYS[2] members                <prefix>:{lb:...}:m
  KEYS[3] expiries               <prefix>:{lb:...}:x     zset user -> ms the streak is lost
  KEYS[4] falls                  <prefix>:{lb:...}:f     counter, counts the removal (leaderboardRank.lua)
  KEYS[5] sequences              <prefix>:{lb:...}:q     hash user -> log entry id (leaderboardRank.lua)

  ARGV[1] now, ms

  Returns how many users left.
]]
local rankingKey = KEYS[1]
local membersKey = KEYS[2]
local expiryKey = KEYS[3]
local fallsKey = KEYS[4]
local sequencesKey = KEYS[5]

local now = ARGV[1]

local lost = redis.call('ZRANGEBYSCORE', expiryKey, '-inf', now)
for _, userId in ipairs(lost) do
  local member = redis.call('HGET', membersKey, userId)
  if member then
    redis.call('ZREM', rankingKey, member)
    redis.call('HDEL', membersKey, userId)
    redis.call('HDEL', sequencesKey, userId)
  end
  redis.call('ZREM', expiryKey, userId)
end
-- Leaving lowers the ranking's entry threshold, like a value going down.
if #lost > 0 then redis.call('INCR', fallsKey) end
return #lost
