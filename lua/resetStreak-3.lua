--[[
  Resets a user's streak to zero (POST /admin/v1/streaks/reset): the run's periods go into the
  history hash (lua/includes/streak.lua), and the streak starts again with the user's next
  extension, in this very period too (the period counts as not covered, its sums start again).
  Freezes held and the longest length are kept.

  KEYS[1] user hash              <slot>user:<tenant>:<uid>
  KEYS[2] streak history         <slot>sh:<tenant>:<uid>
  KEYS[3] partition event log    <slot>log                    a 'reset' entry when reset

  ARGV[1] the current length (as the api computed it, lost streaks being 0)
  ARGV[2] the log entry (JSON, built by the api)

  Returns {1} when reset, {0} when there was no streak to reset, or {-4} for an unknown user.
]]
local userKey = KEYS[1]
local historyKey = KEYS[2]
local logKey = KEYS[3]

local current = tonumber(ARGV[1])
local logEntry = ARGV[2]

--- @include "streak"
--- @include "logAdd"

local stored = redis.call('HMGET', userKey, 'id', 's')
if not stored[1] then return {-4} end
if current <= 0 or not stored[2] then return {0} end
local st = parseStreak(stored[2])
local run = runHistory(st)
if #run > 0 then redis.call('HSET', historyKey, unpack(run)) end
st.len, st.last, st.start, st.run, st.p, st.accs = 0, nil, nil, nil, nil, ''
redis.call('HSET', userKey, 's', packStreak(st))
logAdd(logKey, 'reset', logEntry)
return {1}
