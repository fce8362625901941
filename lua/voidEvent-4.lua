--[[
  Voids one logged event of a user (src/engine/fairplay/void.ts; docs/api.md, "Fair play:
  voiding an event and revoking an achievement"), on the user's partition: the part of its value
  that counted taken off the metric's total, the bucket of its local day and the run sums of the
  boards it added to; the points it awarded taken back by awards of the opposite sign (trigger
  'void', dated now, counted on today's bucket; totals never go below 0); the event marked voided
  in the user-metric hash, so voiding it again changes nothing; the metric's limit's period sum
  ('lim', lua/includes/limits.lua) taken down by the value when it is still the sum of the
  event's period (never below 0), so later events of that period can count it; and a 'voided'
  entry appended to the log, with the awards as 'pa'. Achievements and the streak stay as they
  are. Pure: the value, the days, the period and the awards come in as arguments.

  KEYS[1] user hash              <slot>user:<tenant>:<uid>
  KEYS[2] user-metric hash       <slot>um:<metricId>:<tenant>:<uid>   v:<event id> -> when voided (ms)
  KEYS[3] points key base        <slot>up:<tenant>:<uid>:             (lua/includes/points.lua)
  KEYS[4] partition event log    <slot>log

  ARGV[1] the event's id
  ARGV[2] the metric's total field in the user hash ('m:<metricId>')
  ARGV[3] the value to add: the negated part of the event's value that counted (a decimal string)
  ARGV[4] '1' when that value is an integer
  ARGV[5] the event's day field in the user-metric hash ('d:<local day>')
  ARGV[6] the run sums the event added to ('r:<board id>:<run>', comma-separated; '' none): each
          one the hash holds takes the value
  ARGV[7] now (ms): the awards' date
  ARGV[8] today's day field on the user's clock ('d:<local day>'): the points days' bucket
  ARGV[9] the points to take back, '<system id>|<points>' comma-separated ('' none)
  ARGV[10] the log entry (JSON)
  ARGV[11] the event's period of the metric's limit ('<letter><index>', as 'lim' names it; '' none)

  Returns {entry id, total after, awards}: awards as the log carries them (a JSON list of [system
  id, 'void', awarded, total, n, '']; '' without); {0} when the event was voided already (nothing
  changed); {-4} for an unknown user (nothing changed).
]]
local userKey = KEYS[1]
local userMetricKey = KEYS[2]
local pointsBase = KEYS[3]
local logKey = KEYS[4]

local eventId, totalField, value, isInteger = ARGV[1], ARGV[2], ARGV[3], ARGV[4] == '1'
local dayField, runs, now, today, points, entry = ARGV[5], ARGV[6], tonumber(ARGV[7]), ARGV[8], ARGV[9], ARGV[10]
local limitPeriod = ARGV[11]

--- @include "completeAchievements"
--- @include "points"
--- @include "addNumber"
--- @include "logAdd"

if redis.call('EXISTS', userKey) == 0 then return {-4} end
if redis.call('HSETNX', userMetricKey, 'v:' .. eventId, ARGV[7]) == 0 then return {0} end

local total = numberText(addNumber(userKey, totalField, value, isInteger))
addNumber(userMetricKey, dayField, value, isInteger)
for field in string.gmatch(runs, '[^,]+') do
  if redis.call('HEXISTS', userMetricKey, field) == 1 then addNumber(userMetricKey, field, value, isInteger) end
end
-- The limit's room: only a positive value used any of it (limitTake).
if limitPeriod ~= '' and tonumber(value) < 0 then
  local stored = redis.call('HGET', userMetricKey, 'lim')
  local p, sum = string.match(stored or '', '^([^|]*)|(.*)$')
  if p == limitPeriod then
    local left = tonumber(sum) + tonumber(value)
    if left < 0 then left = 0 end
    if left % 1 ~= 0 then left = math.floor(left * 1e9 + 0.5) / 1e9 end
    redis.call('HSET', userMetricKey, 'lim', p .. '|' .. limitText(left))
  end
end

local awards = ''
if points ~= '' then
  local pc = pointsContext(userKey, pointsBase, now, today, '')
  for sys, amount in string.gmatch(points, '([^,|]+)|([^,]+)') do pointsAward(pc, sys, nil, 'void', -tonumber(amount), false) end
  pointsCommit(pc)
  if #pc.awards > 0 then awards = pointsLog(pc) end
end

local id
if awards == '' then id = logAdd(logKey, 'voided', entry) else id = logAdd(logKey, 'voided', entry, 'pa', awards) end
return {id, total, awards}
