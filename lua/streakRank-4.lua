--[[
  Records a user's streak in the tenant's streak rankings (their own hash slot): by phase 2 of the
  event that extended it (src/engine/standing.ts), by an admin's operation on the streak, and by a
  restore: the user's current and longest length and when the current one expires. Values are
  absolute, so running it twice changes nothing. Scores are the length plus a fraction that is
  larger the earlier the length was reached, so equal lengths rank by who reached them first; the
  longest only ever grows (ZADD GT), so reaching an equal length later keeps the earlier time.

  Order: phase 2 of two events of one user may arrive in another order than their phase 1 ran. A
  call that carries its event's log entry id (ARGV[5]) records it per user and changes nothing when
  the user's recorded id is the same or later: the rankings never go back to an earlier state.

  KEYS[1] active lengths      <prefix>:{st:<tenant>}:active    zset user -> current length
  KEYS[2] longest lengths     <prefix>:{st:<tenant>}:longest   zset user -> longest length
  KEYS[3] expiries            <prefix>:{st:<tenant>}:expiry    zset user -> ms the streak is lost
  KEYS[4] sequences           <prefix>:{st:<tenant>}:seq       hash user -> log entry id recorded

  ARGV[1] user id
  ARGV[2] score of the current length
  ARGV[3] score of the longest length
  ARGV[4] expiry, ms since the epoch
  ARGV[5] the log entry id ('<ms>-<n>') of the event or operation, or '' (not ordered)

  Returns 1, or 0 when a later entry of the user was recorded already.
]]
--- @include "streamOrder"
local activeKey = KEYS[1]
local longestKey = KEYS[2]
local expiryKey = KEYS[3]
local sequencesKey = KEYS[4]

local userId = ARGV[1]
local seq = ARGV[5]

if seq ~= '' then
  local held = redis.call('HGET', sequencesKey, userId)
  if held and not before(held, seq) then return 0 end
  redis.call('HSET', sequencesKey, userId, seq)
end
redis.call('ZADD', activeKey, ARGV[2], userId)
redis.call('ZADD', longestKey, 'GT', ARGV[3], userId)
redis.call('ZADD', expiryKey, ARGV[4], userId)
return 1
