--[[
  The metric's plan, by id. Every event of a metric runs on the same plan until its
  configuration changes, and a plan runs to hundreds of bytes (its hot part, which patterns parse
  into tables for about 12,000 instructions, and its details as JSON), while Redis's Lua hashes
  every byte of every string it makes (about 7 instructions a byte). So events send only the
  plan's id (<plan> in ARGV[1]: 16 hex digits of a digest of the plan, one id for one content),
  and the library keeps each plan it was sent in full, parsed.

  A library that does not hold the plan (its first event, a reload by FUNCTION LOAD, a restart,
  a failover, another node of a Cluster) answers so before writing anything, and the api sends
  the event again with the plan in full (ARGV[5]): one more round trip, never another result.
  The memo holds only what arguments said, never data, so a replica or an AOF replay (both
  apply the script's effects) sees what the primary did. Bounded: it starts over once it holds
  1,024 plans.

  hotPlan(id, full) -> the plan of that id; `full` ('<total field>\n<hot>\n<details>', or '')
  gives it when the library does not hold it; nil when neither does. The plan is {total, high,
  details, ach, rule, points, thresholds, letter, mode, all, sa, fz, fast, decoded, ruleDetails},
  shared: callers must not change it, but for the parts worked out once on first use (decoded,
  uf, ruleDetails).
    total              the metric's total field in the user hash ('m:<metricId>')
    high               the field of the total's highest point ('h' .. total), joined once per plan
    details            the plan's details, JSON (recordEventPlan ARGV[5])
    ach, rule, points  the three parts of <hot> ('' when absent)
    thresholds         the metric achievements', in the order of <ach>: {goal, filter (its
                       position in <matches>, or nil)}
    all, sa, fz        the rule's flags (lua/includes/streak.lua): evaluation `all`, streak
                       achievements exist, freezes are configured (read once here, not by a
                       string.byte call per event)
    letter, mode       the rule's frequency letter and mode (1: the metric is not in the rule,
                       2: it is); nil without a rule
    fast               the usual points plan (one points trigger, on this metric, with no filter,
                       no other kind of trigger): {T, P (text), block, cap, trigger, system, pt,
                       pn (the system's total and award-count fields)}; nil otherwise
    decoded            the details decoded, once something needed them (planDetails(plan)), else
                       false
    uf                 per metric achievement, whether it has a user filter (userFiltered(plan)),
                       once an event found a total past a goal
    ruleDetails        the rule's details, once an event needed them (lua/includes/streak.lua
                       ruleDetails), else false

  planDetails(plan) -> the plan's details decoded (cjson), kept in the plan: decoded once per plan,
  not once per event, and without a closure made per event to remember them (about 1,000
  instructions an event).
]]
--- @include "bytes"
local hotPlans, hotPlanCount = {}, 0

local function hotPlan(id, full)
  local plan = hotPlans[id]
  if plan then return plan end
  if full == '' then return nil end
  local total, hot, details = string.match(full, '^([^\n]*)\n([^\n]*)\n(.*)$')
  local ach, rule, points = string.match(hot, '^([^#]*)#([^#]*)#(.*)$')
  local thresholds = {}
  for goal, filter in string.gmatch(ach, '([^,:]+):?(%d*)') do
    thresholds[#thresholds + 1] = {goal = tonumber(goal), filter = tonumber(filter)}
  end
  plan = {total = total, high = 'h' .. total, details = details, ach = ach, rule = rule, points = points, thresholds = thresholds,
    letter = nil, mode = nil, all = false, sa = false, fz = false, fast = nil, decoded = false,
    ruleDetails = false}
  if rule ~= '' then
    local m, a, sa, fz = string.byte(rule, 2, 5)
    plan.letter, plan.mode = string.sub(rule, 1, 1), m - BYTE_ZERO
    plan.all, plan.sa, plan.fz = a == BYTE_ONE, sa == BYTE_ONE, fz == BYTE_ONE
  end
  local T, P, block, cap, trigger, system = string.match(points, '^0000|(%d+),,(%-?%d+),(%d?),,(%d*),([^,;]+),([^;]+)|$')
  if T then
    plan.fast = {T = T + 0, P = P, block = block == '1', cap = cap ~= '' and cap + 0 or nil, trigger = trigger,
      system = system, pt = 'pt:' .. system, pn = 'pn:' .. system}
  end
  if hotPlanCount >= 1024 then hotPlans, hotPlanCount = {}, 0 end
  hotPlans[id] = plan
  hotPlanCount = hotPlanCount + 1
  return plan
end

-- The plan's details, decoded on first use and kept with the plan (read only, like the plan).
local function planDetails(plan)
  local d = plan.decoded
  if not d then
    d = cjson.decode(plan.details)
    plan.decoded = d
  end
  return d
end

-- Per metric achievement of the plan (in the order of its thresholds), whether it has a user
-- filter; worked out once per plan, when an event first finds a total past a goal.
local function userFiltered(plan)
  local uf = {}
  for k, m in ipairs(planDetails(plan).m or {}) do uf[k] = type(m.ua) == 'table' end
  plan.uf = uf
  return uf
end
