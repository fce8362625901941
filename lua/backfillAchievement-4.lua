--[[
  Completes one achievement, silently, for a user who already qualifies (after the achievement
  was activated or changed), then the composites that this completes. Not for a user whose
  completion of it was revoked ('rv:<achievement id>' in the user hash, lua/revokeAchievement-3.lua):
  a backfill queued before the revoke may run after it, and only the achievement's own trigger
  gives a revoked completion back.

  KEYS[1] user hash              <slot>user:<tenant>:<uid>
  KEYS[2] user-metric hash       <slot>um:<metricId>:<tenant>:<uid> (the user hash again when the
                                 achievement has no metric)
  KEYS[3] completion counters    <slot>achc:<tenant>
  KEYS[4] partition event log    <slot>log                    a 'backfill' entry when it completed any

  ARGV[1] now, ISO-8601
  ARGV[2] plan (msgpack): a = the achievement's entry (metric: tf = total field or pf = progress
          field, and v = threshold; composite: r; streak: l = length, met by the longest streak
          the user ever had, unless their streak preferences disable the streak; anniversary:
          y = 1, the worker found that it came), c = the composites
  ARGV[3] the log entry (JSON, built by the worker)

  Returns the number of achievements completed.
]]
local userKey = KEYS[1]
local userMetricKey = KEYS[2]
local countsKey = KEYS[3]
local logKey = KEYS[4]

local stamp = ARGV[1]
local plan = cmsgpack.unpack(ARGV[2])
local entry = ARGV[3]

--- @include "completeAchievements"
--- @include "streak"
--- @include "logAdd"

local a = plan.a
if redis.call('EXISTS', userKey) == 0 or redis.call('HEXISTS', userKey, a.cf) == 1 then return 0 end
if redis.call('HEXISTS', userKey, 'rv:' .. a.id) == 1 then return 0 end

local qualifies = false
if a.r then
  qualifies = true
  for _, field in ipairs(redis.call('HMGET', userKey, unpack(a.r))) do
    if not field then qualifies = false break end
  end
elseif a.l then
  -- Not a user whose streak preferences disable the streak (lua/updatePreferences-3.lua).
  local stored = redis.call('HMGET', userKey, 's', 's:o')
  qualifies = parseStreak(stored[1] or nil).long >= a.l and not (stored[2] and string.find(stored[2], '"enabled":false', 1, true))
elseif a.y then
  qualifies = true
elseif a.v then
  local current
  if a.pf then current = redis.call('HGET', userMetricKey, a.pf) else current = redis.call('HGET', userKey, a.tf) end
  qualifies = current ~= false and tonumber(current) >= a.v
end

local completed = {}
if qualifies and complete(userKey, countsKey, a, stamp, completed) then
  cascade(userKey, countsKey, plan.c, stamp, completed)
end
if #completed > 0 then logAdd(logKey, 'backfill', entry) end
return #completed
