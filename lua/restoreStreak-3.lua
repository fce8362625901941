--[[
  Restores a user's streak to the longest length it had within a window of recent periods: the
  streak continues as if the previous period had been extended at that length, so the user keeps
  it by acting in the current period. The lengths come from the history hash and from the stored
  streak's run (lua/includes/streak.lua), whose periods are written into the hash here: the
  restored streak starts without a run.

  KEYS[1] user hash              <slot>user:<tenant>:<uid>
  KEYS[2] streak history         <slot>sh:<tenant>:<uid>
  KEYS[3] partition event log    <slot>log                    a 'restore' entry when restored

  ARGV[1] frequency letter ('d', 'w', 'm')
  ARGV[2] the current period
  ARGV[3] the first period of the window
  ARGV[4] the current length (as the api computed it, lost streaks being 0)
  ARGV[5] the log entry (JSON, built by the api)

  Returns {restoredLength} (0: nothing to restore; -15: already at that length), or {-4} for an
  unknown user.
]]
local userKey = KEYS[1]
local historyKey = KEYS[2]
local logKey = KEYS[3]

local frequency = ARGV[1]
local period = tonumber(ARGV[2])
local from = tonumber(ARGV[3])
local current = tonumber(ARGV[4])
local logEntry = ARGV[5]

--- @include "streak"
--- @include "logAdd"

local stored = redis.call('HMGET', userKey, 'id', 's')
if not stored[1] then return {-4} end
local st = parseStreak(stored[2])
local best = 0
-- The run's periods are not in the history hash (lua/includes/streak.lua): its longest length in
-- the window is that of its last period in the window.
if st.f == frequency and st.run and st.last then
  local q = math.min(st.last, period - 1)
  if q >= from and q >= st.run then best = st.len - (st.last - q) end
end
local history = redis.call('HGETALL', historyKey)
for i = 1, #history, 2 do
  local p = tonumber(history[i])
  if p >= from and p < period then
    local entry = history[i + 1]
    local mark = string.sub(entry, 1, 1)
    if mark == 'f' or mark == 'p' then entry = string.sub(entry, 2) end
    local length = tonumber(entry)
    if length > best then best = length end
  end
end
if best == 0 then return {0} end
if current >= best then return {-15} end
-- The run ends here: its periods go into the history hash, and the restored streak has none.
local run = runHistory(st)
if #run > 0 then redis.call('HSET', historyKey, unpack(run)) end
st.f, st.len, st.last, st.start, st.run = frequency, best, period - 1, period - best, nil
if best > st.long then st.long = best end
redis.call('HSET', userKey, 's', packStreak(st))
logAdd(logKey, 'restore', logEntry)
return {best}
