--[[
  Revokes a user's completion of one achievement (src/engine/fairplay/revoke.ts), on the user's
  partition: the completion field gone from the user hash, the partition's completion count of
  the achievement one lower (rarity counts the users there are), a 'revoked' entry appended to
  the log, and its id kept in the user hash's 'rv:<achievement id>', which a backfill reads: it
  never completes the achievement for the user again (lua/backfillAchievement-4.lua), whenever it
  runs. Points an achievement trigger awarded for it stay.

  KEYS[1] user hash              <slot>user:<tenant>:<uid>
  KEYS[2] completion counters    <slot>achc:<tenant>
  KEYS[3] partition event log    <slot>log

  ARGV[1] the achievement's id
  ARGV[2] the log entry (JSON)

  Returns {entry id}; {0} when the user has not completed it (nothing changed); {-4} for an
  unknown user (nothing changed).
]]
local userKey = KEYS[1]
local completionsKey = KEYS[2]
local logKey = KEYS[3]

--- @include "logAdd"

if redis.call('EXISTS', userKey) == 0 then return {-4} end
if redis.call('HDEL', userKey, 'c:' .. ARGV[1]) == 0 then return {0} end
redis.call('HINCRBY', completionsKey, ARGV[1], -1)
local entryId = logAdd(logKey, 'revoked', ARGV[2])
redis.call('HSET', userKey, 'rv:' .. ARGV[1], entryId)
return {entryId}
