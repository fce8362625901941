--[[
  Records users' streaks in the tenant's streak rankings (their own hash slot): by phase 2 of the
  event that extended it (src/engine/streaks/rankings.ts), by an admin's operation on the streak, and by a
  restore: each user's current and longest length and when the current one expires. Values are
  absolute, so running it twice changes nothing. Several users of one tenant in one call (ARGV in
  groups of six).

  Ties: each ranking is a sorted set whose score is the length and whose member is
  '<order>|<user id>', order a 21-digit complement of the log entry id of the event that reached
  the length (src/domain/leaderboards/runs.ts orderOf): equal lengths list by descending member, the
  earliest arrival first. The current length's member changes with every extension; the longest's
  only when it grows, so reaching an equal longest later keeps the earlier arrival. A member without
  '|' (written before members carried an order) is the user id itself.

  The standing hash keeps per user, in one field, what the next write needs without reading the
  rankings: '<seq>|<active order>|<active length>|<longest order>|<longest length>' (an empty order:
  no member, or the bare user id of an older one).

  Order of writes: phase 2 of two events of one user may arrive in another order than their phase
  1 ran. A write that carries its event's log entry id records it, and changes nothing when the
  user's recorded id is the same or later.

  KEYS[1] active lengths      <prefix>:{st:<tenant>}:active    zset member -> current length
  KEYS[2] longest lengths     <prefix>:{st:<tenant>}:longest   zset member -> longest length
  KEYS[3] expiries            <prefix>:{st:<tenant>}:expiry    zset user -> ms the streak is lost
  KEYS[4] standing            <prefix>:{st:<tenant>}:u         hash user -> the field above

  ARGV, per user, six at a time:
    user id, current length, longest length, expiry (ms since the epoch), the log entry id
    ('<ms>-<n>') of the event or operation or '' (not ordered), order (21 digits) of this length's
    arrival

  Returns how many users' writes were taken (a write older than the recorded one is not).
]]
--- @include "streamOrder"
local activeKey = KEYS[1]
local longestKey = KEYS[2]
local expiryKey = KEYS[3]
local standingKey = KEYS[4]

local taken = 0
for i = 1, #ARGV, 6 do
  local userId, lengthText, longestText, seq, order = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 4], ARGV[i + 5]
  local held = redis.call('HGET', standingKey, userId)
  local heldSeq, activeOrder, activeLength, longestOrder, longest = '', '', '', '', ''
  if held then
    heldSeq, activeOrder, activeLength, longestOrder, longest = string.match(held, '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|(.*)$')
  end
  if seq == '' or heldSeq == '' or before(heldSeq, seq) then
    taken = taken + 1
    if seq ~= '' then heldSeq = seq end
    -- The current length: a new member for an extension (an entry with an id: its length was
    -- reached now, also when a new streak reaches the length a lost one still shows), else unless
    -- the length is the one it holds (an operation writing the state again).
    if seq ~= '' or activeLength ~= lengthText then
      -- No length recorded: no member (src/engine/durability/upgrade.ts recorded every older one).
      if activeLength ~= '' then redis.call('ZREM', activeKey, activeOrder == '' and userId or activeOrder .. '|' .. userId) end
      redis.call('ZADD', activeKey, lengthText, order .. '|' .. userId)
      activeOrder, activeLength = order, lengthText
    end
    -- The longest: only a greater length moves it.
    if longest == '' or tonumber(longest) < tonumber(longestText) then
      if longest ~= '' then redis.call('ZREM', longestKey, longestOrder == '' and userId or longestOrder .. '|' .. userId) end
      redis.call('ZADD', longestKey, longestText, order .. '|' .. userId)
      longestOrder, longest = order, longestText
    end
    redis.call('ZADD', expiryKey, ARGV[i + 3], userId)
    redis.call('HSET', standingKey, userId, heldSeq .. '|' .. activeOrder .. '|' .. activeLength .. '|' .. longestOrder .. '|' .. longest)
  end
end
return taken
