--[[
  Accrues a user's time-trigger awards that are due: each award dated when it was due and counted
  on that local day (the api works the times and days out), then when the next one is due. The
  api read the due times it passes; if another process moved them meanwhile, nothing is written
  and the api starts again.

  KEYS[1] user hash              <slot>user:<tenant>:<uid>
  KEYS[2] points key base        <slot>up:<tenant>:<uid>:     (lua/includes/points.lua)
  KEYS[3] the partition's due set <slot>ptdue                 zset '<tenant>|<uid>' -> earliest due ms
  KEYS[4] partition event log    <slot>log                   a 'points' entry when something was awarded

  ARGV[1] '<member>|<earliest next due ms>': the user in the due set, and its new score
  ARGV[2] the awards due, oldest first (several triggers interleaved, so caps bind in time
          order): '<due ms>:<day field>:<k>:<period>,...' where k is the trigger's position
          below and period, for a trigger with maxAwards, the index of the due time's period of
          it on the user's clock (lua/includes/limits.lua; '' otherwise)
  ARGV[3] the boosts that may apply (JSON, src/domain/points/rules.ts boostsFor) or ''
  ARGV[4] the log entry without its closing brace (JSON, built by the api); "pa" is added
  ARGV[5...] one per time trigger: '<trigger id>|<system id>|<points>|<cap or ''>|<next due as
          read, or ''>|<next due after this>|<maxAwards: '<count>:<period letter>', or ''>'

  A trigger's maxAwards: at most count awards per period of the user's clock, counted in the
  user hash's 'tx:<trigger id>' as a metric trigger's are; an award due past it is not made, and
  not paid later.

  Returns {1, awards, seq}: awards a list of [system id, trigger id, awarded, total, n, ms, day
  field, boost ids] (lua/includes/points.lua pointsCommit; n numbers the user's awards in the
  system), '' without; seq the log entry's id, which phase 2 orders the user's placements by, or
  nothing when no award fell due. {-14} when a due time moved meanwhile, {-4} for an unknown user.
]]
local userKey = KEYS[1]
local pointsBase = KEYS[2]
local dueKey = KEYS[3]
local logKey = KEYS[4]

local member, earliest = string.match(ARGV[1], '^(.*)|(%d+)$')

--- @include "completeAchievements"
--- @include "points"
--- @include "logAdd"

if redis.call('HEXISTS', userKey, 'id') == 0 then return {-4} end
local specs = {}
local limits = nil
for i = 5, #ARGV do
  local trigger, sys, points, cap, expected, next, most = string.match(ARGV[i], '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|(.*)$')
  if (redis.call('HGET', userKey, 'tt:' .. trigger) or '') ~= expected then return {-14} end
  specs[#specs + 1] = {trigger, sys, points + 0, tonumber(cap), next}
  if most ~= '' then
    local count, letter = string.match(most, '^(%d+):(%a)$')
    limits = limits or {}
    limits[trigger] = {x = count + 0, p = letter}
  end
end

local pc = pointsContext(userKey, pointsBase, '', '', ARGV[3])
if limits then pc.limits, pc.limitState = limits, {} end
for ms, day, k, period in string.gmatch(ARGV[2], '(%d+):(d:[^:,]+):(%d+):([^,]*)') do
  local x = specs[k + 0]
  local rule = limits and limits[x[1]]
  if rule then
    -- Each due time in its own period: a new period counts from 0 (what limitAllows read first
    -- was the period of the trigger's first due time here).
    pc.times = {[rule.p] = period}
    local st = pc.limitState[x[1]]
    if st and st.period ~= rule.p .. period then st.period, st.count = rule.p .. period, 0 end
  end
  pointsAward(pc, x[2], x[4], x[1], x[3], false, ms, day)
end
local due = {}
for _, x in ipairs(specs) do
  due[#due + 1] = 'tt:' .. x[1]
  due[#due + 1] = x[5]
end
pointsCommit(pc)
redis.call('HSET', userKey, unpack(due))
redis.call('ZADD', dueKey, earliest, member)
if #pc.awards == 0 then return {1, ''} end
local seq = logAdd(logKey, 'points', ARGV[4] .. ',"pa":' .. pointsLog(pc) .. '}')
return {1, pc.awards, seq}
