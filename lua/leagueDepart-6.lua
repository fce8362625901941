--[[
  Takes a user out of their league cohort of a run because the outcome of the run before moved
  their tier after they had joined this one (src/engine/leaderboards/league-relocate.ts), on the
  cohort's own slot, once: their member, value and event sequence leave the ranking, and their
  sequences field becomes '>' followed by the cohort they move to and what they held there, so
  that lua/leaderboardRank-8.lua places them here no more (it answers the cohort they moved to),
  and so that a second call (a finalisation made again, by a second worker or after a kill)
  answers the same state without changing anything. Their seat stays taken: the cohort is one
  smaller. Their awards in the run (points boards) stay, to be answered again.

  KEYS[1] the cohort's ranking     <prefix>:{lb:<tenant>:<board>:<run>:c<tier>.<n>}:r   zset
  KEYS[2] members                  <prefix>:{...}:m             hash user -> '<order>|<user id>'
  KEYS[3] the user's history       <prefix>:{...}:h:<user id>   list, newest first
  KEYS[4] the user's awards        <prefix>:{...}:a:<user id>   hash n -> awarded
  KEYS[5] falls                    <prefix>:{...}:f             counter
  KEYS[6] sequences                <prefix>:{...}:q             hash user -> log entry id, or
          '>' '<tier>.<n>|<value>|<log entry id>|<member>' once moved out

  ARGV[1] user id
  ARGV[2] the cohort the user moves to, '<tier>.<n>'
  ARGV[3] '<ms>': when, for the history

  Returns { member ('' when the user was not ranked here), value, log entry id, award number,
  points, ... }.
]]
local rankingKey = KEYS[1]
local membersKey = KEYS[2]
local historyKey = KEYS[3]
local awardsKey = KEYS[4]
local fallsKey = KEYS[5]
local sequencesKey = KEYS[6]
local userId = ARGV[1]
local target = ARGV[2]
local at = ARGV[3]

local held = redis.call('HGET', sequencesKey, userId)
local member, value, seq
if held and string.sub(held, 1, 1) == '>' then
  local _
  _, value, seq, member = string.match(held, '^>([^|]*)|([^|]*)|([^|]*)|(.*)$')
else
  seq = held or ''
  member = redis.call('HGET', membersKey, userId) or ''
  value = ''
  if member ~= '' then
    local rank = redis.call('ZREVRANK', rankingKey, member)
    value = redis.call('ZSCORE', rankingKey, member) or ''
    redis.call('ZREM', rankingKey, member)
    redis.call('HDEL', membersKey, userId)
    redis.call('INCR', fallsKey)
    if rank then
      local length = redis.call('LPUSH', historyKey, string.format('%s|%d|0|%s|', at, rank + 1, value))
      if length > 100 then redis.call('LTRIM', historyKey, '0', '99') end
    else
      -- A member the ranking no longer holds: nothing of theirs to carry.
      member, value = '', ''
    end
  end
  redis.call('HSET', sequencesKey, userId, '>' .. target .. '|' .. value .. '|' .. seq .. '|' .. member)
end
local out = { member, value, seq }
local awards = redis.call('HGETALL', awardsKey)
for i = 1, #awards do out[#out + 1] = awards[i] end
return out
