--[[
  Records a user's streak in the tenant's streak rankings (their own hash slot): by phase 2 of the
  event that extended it (src/engine/standing.ts), by an admin's operation on the streak, and by a
  restore: the user's current and longest length and when the current one expires. Values are
  absolute, so running it twice changes nothing.

  Ties: each ranking is a sorted set whose score is the length and whose member is
  '<order>|<user id>', order a 21-digit complement of the log entry id of the event that reached
  the length (src/domain/leaderboards.ts orderOf): equal lengths list by descending member, the
  earliest arrival first. The members hashes map each user to their member. The current length's
  member changes with every extension; the longest's only when it grows, so reaching an equal
  longest later keeps the earlier arrival. A member without '|' (written before members carried an
  order) is the user id itself.

  Order of writes: phase 2 of two events of one user may arrive in another order than their phase
  1 ran. A call that carries its event's log entry id (ARGV[5]) records it per user and changes
  nothing when the user's recorded id is the same or later.

  KEYS[1] active lengths      <prefix>:{st:<tenant>}:active    zset member -> current length
  KEYS[2] longest lengths     <prefix>:{st:<tenant>}:longest   zset member -> longest length
  KEYS[3] expiries            <prefix>:{st:<tenant>}:expiry    zset user -> ms the streak is lost
  KEYS[4] sequences           <prefix>:{st:<tenant>}:seq       hash user -> log entry id recorded
  KEYS[5] active members      <prefix>:{st:<tenant>}:am        hash user -> member in KEYS[1]
  KEYS[6] longest members     <prefix>:{st:<tenant>}:lm        hash user -> member in KEYS[2]

  ARGV[1] user id
  ARGV[2] current length
  ARGV[3] longest length
  ARGV[4] expiry, ms since the epoch
  ARGV[5] the log entry id ('<ms>-<n>') of the event or operation, or '' (not ordered)
  ARGV[6] order (21 digits) of this length's arrival

  Returns 1, or 0 when a later entry of the user was recorded already.
]]
--- @include "streamOrder"
local activeKey = KEYS[1]
local longestKey = KEYS[2]
local expiryKey = KEYS[3]
local sequencesKey = KEYS[4]
local activeMembersKey = KEYS[5]
local longestMembersKey = KEYS[6]

local userId = ARGV[1]
local length = tonumber(ARGV[2])
local longest = tonumber(ARGV[3])
local seq = ARGV[5]
local member = ARGV[6] .. '|' .. userId

if seq ~= '' then
  local held = redis.call('HGET', sequencesKey, userId)
  if held and not before(held, seq) then return 0 end
  redis.call('HSET', sequencesKey, userId, seq)
end

-- The current length: a new member for an extension (an entry with an id: its length was reached
-- now, also when a new streak reaches the length a lost one still shows), else unless the length
-- is the one it holds (an operation writing the state again).
local old = redis.call('HGET', activeMembersKey, userId) or userId
if seq ~= '' then
  redis.call('ZREM', activeKey, old)
  redis.call('ZADD', activeKey, length, member)
  redis.call('HSET', activeMembersKey, userId, member)
else
  local score = redis.call('ZSCORE', activeKey, old)
  if not score or tonumber(score) ~= length then
    if score then redis.call('ZREM', activeKey, old) end
    redis.call('ZADD', activeKey, length, member)
    redis.call('HSET', activeMembersKey, userId, member)
  end
end

-- The longest: only a greater length moves it.
old = redis.call('HGET', longestMembersKey, userId) or userId
local score = redis.call('ZSCORE', longestKey, old)
if not score or tonumber(score) < longest then
  if score then redis.call('ZREM', longestKey, old) end
  redis.call('ZADD', longestKey, longest, member)
  redis.call('HSET', longestMembersKey, userId, member)
end

redis.call('ZADD', expiryKey, ARGV[4], userId)
return 1
