--[[
  A user leaves the tenant's streak rankings (their own hash slot; lua/streakRank-4.lua has their
  form): their members of the active and longest rankings and their expiry removed. Excluding a
  user (src/engine/fairplay/exclude.ts) keeps the exclusion's log entry id in their standing, with
  no member, so a write of an earlier event or operation that arrives later changes nothing, and
  the next extension after the exclusion ends writes their lengths again. An erasure
  (src/engine/erasure/elsewhere.ts) then deletes the standing.

  KEYS[1] active lengths      <prefix>:{st:<tenant>}:active    zset member -> current length
  KEYS[2] longest lengths     <prefix>:{st:<tenant>}:longest   zset member -> longest length
  KEYS[3] expiries            <prefix>:{st:<tenant>}:expiry    zset user -> ms the streak is lost
  KEYS[4] standing            <prefix>:{st:<tenant>}:u         hash user -> '<seq>|<active order>|
          <active length>|<longest order>|<longest length>'

  ARGV[1] user id
  ARGV[2] the log entry id of what removes them ('<ms>-<n>'); '' keeps the standing's own

  Returns how many members and fields were removed (0: the user held no place).
]]
--- @include "streamOrder"
local activeKey = KEYS[1]
local longestKey = KEYS[2]
local expiryKey = KEYS[3]
local standingKey = KEYS[4]

local userId = ARGV[1]
local seq = ARGV[2]

local removed = redis.call('ZREM', expiryKey, userId)
local held = redis.call('HGET', standingKey, userId)
local heldSeq, activeOrder, activeLength, longestOrder, longest = '', '', '', '', ''
if held then
  heldSeq, activeOrder, activeLength, longestOrder, longest = string.match(held, '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|(.*)$')
end
-- A member without an order (written before members carried one) is the user id itself.
if activeLength ~= '' then removed = removed + redis.call('ZREM', activeKey, activeOrder == '' and userId or activeOrder .. '|' .. userId) end
if longest ~= '' then removed = removed + redis.call('ZREM', longestKey, longestOrder == '' and userId or longestOrder .. '|' .. userId) end
if seq ~= '' and (heldSeq == '' or before(heldSeq, seq)) then heldSeq = seq end
if held or heldSeq ~= '' then redis.call('HSET', standingKey, userId, heldSeq .. '||||') end
return removed
