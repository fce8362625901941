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
          order): '<due ms>:<day field>:<k>,...' where k is the trigger's position below
  ARGV[3] the boosts that may apply (JSON, src/domain/points/rules.ts boostsFor) or ''
  ARGV[4] the log entry without its closing brace (JSON, built by the api); "pa" is added
  ARGV[5...] one per time trigger: '<trigger id>|<system id>|<points>|<cap or ''>|<next due as
          read, or ''>|<next due after this>'

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
for i = 5, #ARGV do
  local trigger, sys, points, cap, expected, next = string.match(ARGV[i], '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|(.*)$')
  if (redis.call('HGET', userKey, 'tt:' .. trigger) or '') ~= expected then return {-14} end
  specs[#specs + 1] = {trigger, sys, points + 0, tonumber(cap), next}
end

local pc = pointsContext(userKey, pointsBase, '', '', ARGV[3])
for ms, day, k in string.gmatch(ARGV[2], '(%d+):([^,]+):(%d+)') do
  local x = specs[k + 0]
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
