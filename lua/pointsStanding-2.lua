--[[
  Records a user's total of one points system in the tenant's totals set (its own hash slot, read by
  GET /points/{key}/summary), by phase 2 of the event that awarded the points and by the other
  writers of awards (src/engine/standing.ts). An absolute value: running it twice changes nothing.

  Order: as lua/streakRank-6.lua, a call that carries its log entry id (ARGV[3]) changes nothing
  when the user's recorded id is the same or later.

  KEYS[1] totals              <prefix>:{pts:<tenant>}:<system id>        zset user -> total
  KEYS[2] sequences           <prefix>:{pts:<tenant>}:<system id>:seq    hash user -> log entry id

  ARGV[1] user id
  ARGV[2] the user's total after the awards
  ARGV[3] the log entry id ('<ms>-<n>') of the awards, or '' (not ordered)

  Returns 1, or 0 when a later entry of the user was recorded already.
]]
--- @include "streamOrder"
local totalsKey = KEYS[1]
local sequencesKey = KEYS[2]

local userId = ARGV[1]
local seq = ARGV[3]

if seq ~= '' then
  local held = redis.call('HGET', sequencesKey, userId)
  if held and not before(held, seq) then return 0 end
  redis.call('HSET', sequencesKey, userId, seq)
end
redis.call('ZADD', totalsKey, ARGV[2], userId)
return 1
