--[[
  A user leaves a breakdown group's ranking (one board run and group, on its own hash slot) because
  an attribute the board breaks down by changed (PUT/PATCH/POST /users, or an event's
  user.attributes): a user is ranked in the group of their current values only
  (src/engine/leaderboards/leave-groups.ts).

  The change is ordered among the user's events by its log entry id (the identification's or the
  event's): every event before it read the old value, every event after it reads the new one. The
  departure keeps that id in the sequences hash whether or not the user is a member now, so a
  placement of an earlier event that arrives later (lua/leaderboardRank-8.lua) changes nothing; and
  it changes nothing itself when the user holds a later event's place here (they came back).

  Leaving may lower the entry threshold of a full ranking: the falls counter counts it, and the
  user's history gets an entry going to rank 0, as leaderboardRank writes for a rank change.

  KEYS[1] ranking                <prefix>:{lb:<tenant>:<board>:<run>:<group>}:r   zset
  KEYS[2] members                <prefix>:{...}:m                                 hash user -> member
  KEYS[3] the user's history     <prefix>:{...}:h:<user id>                       list, newest first
  KEYS[4] expiries               <prefix>:{...}:x                                 zset (streak boards)
  KEYS[5] falls                  <prefix>:{...}:f                                 counter
  KEYS[6] sequences              <prefix>:{...}:q                                 hash user -> log entry id

  ARGV[1] user id
  ARGV[2] the log entry id of the identification or event that changed the attribute
  ARGV[3] '<ms>': when, for the history

  Returns the rank the user left (0 when not a member, or when a later event placed them here).
]]
local rankingKey = KEYS[1]
local membersKey = KEYS[2]
local historyKey = KEYS[3]
local expiryKey = KEYS[4]
local fallsKey = KEYS[5]
local sequencesKey = KEYS[6]

local userId = ARGV[1]
local seq = ARGV[2]
local at = ARGV[3]

--- @include "streamOrder"

local held = redis.call('HGET', sequencesKey, userId)
if held and before(seq, held) then return 0 end
redis.call('HSET', sequencesKey, userId, seq)
local member = redis.call('HGET', membersKey, userId)
if not member then return 0 end
local rank = redis.call('ZREVRANK', rankingKey, member)
local value = redis.call('ZSCORE', rankingKey, member)
redis.call('ZREM', rankingKey, member)
redis.call('HDEL', membersKey, userId)
redis.call('ZREM', expiryKey, userId)
redis.call('INCR', fallsKey)
if not rank then return 0 end
local length = redis.call('LPUSH', historyKey, string.format('%s|%d|0|%s|', at, rank + 1, value or ''))
if length > 100 then redis.call('LTRIM', historyKey, '0', '99') end
return rank + 1
