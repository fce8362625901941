--[[
  The metric's plan, by id. Every event of a metric runs on the same plan until its
  configuration changes, and a plan runs to hundreds of bytes (its hot part, which patterns parse
  into tables, and its details as JSON), while Redis's Lua hashes every byte of every string it
  makes. So events send only the plan's id (<plan> in ARGV[1]: 16 hex digits of a digest of the
  plan, one id for one content), and the library keeps each plan it was sent in full, parsed.

  A library that does not hold the plan (its first event, a reload by FUNCTION LOAD, a restart,
  a failover, another node of a Cluster) answers so before writing anything, and the api sends
  the event again with the plan in full (ARGV[5]): one more round trip, never another result.
  The memo holds only what arguments said, never data, so a replica or an AOF replay (both
  apply the script's effects) sees what the primary did. Bounded: it starts over once it holds
  1,024 plans.

  hotPlan(id, full) -> the plan of that id; `full` ('<total field>\n<hot>\n<details>', or '')
  gives it when the library does not hold it; nil when neither does. The plan is {total, high,
  details, ach, rule, points, anniv, thresholds, letter, mode, all, sa, fz, fast, decoded, ruleDetails,
  triggers, token}, shared: callers must not change it, but for the parts worked out once on first
  use (decoded, uf, ruleDetails, triggers).

  A user with streak preferences (the user hash's 's:ov') has a rule of their own: the api sends
  '<plan id><token><rule>' as the id (16 hex digits each, then the user's rule for this metric in
  the form of <rule>, src/config/plans/streaks.ts userStreakRule). That plan is the metric's with
  the user's rule in place of the tenant's, and `token` (false in a metric's own plan) the
  preferences' token it was compiled from; kept in the memo under that id, so users with the same
  preferences share it.
    total              the metric's total field in the user hash ('m:<metricId>')
    high               the field of the total's highest point ('h' .. total), joined once per plan
    details            the plan's details, JSON (recordEventPlan ARGV[5])
    ach, rule, points  the first three parts of <hot> ('' when absent)
    anniv              the fourth, only with anniversary achievements: the fewest years among
                       them, a number; nil without
    thresholds         the metric achievements', in the order of <ach>: {goal, filter (its
                       position in <matches>, or nil)}
    all, sa, fz        the rule's flags (lua/includes/streak.lua): evaluation `all`, streak
                       achievements exist, freezes are configured (read once here, not by a
                       string.byte call per event)
    off                a daily rule's weekdays off, {[weekday] = true, n = how many} (0 Sunday ..
                       6 Saturday), read once here; nil without days off
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
    triggers           the points part parsed (pointsTriggers(plan)), once an event took the
                       general points path, else false

  planDetails(plan) -> the plan's details decoded (cjson), kept in the plan: decoded once per plan,
  not once per event, and without a closure made per event to remember them.
]]
--- @include "bytes"
local hotPlans, hotPlanCount = {}, 0

-- The rule's flags read into the plan (its first five characters), once per plan.
local function ruleFlags(plan, rule)
  if rule == '' then return end
  local m, a, sa, fz = string.byte(rule, 2, 5)
  plan.letter, plan.mode = string.sub(rule, 1, 1), m - BYTE_ZERO
  plan.all, plan.sa, plan.fz = a == BYTE_ONE, sa == BYTE_ONE, fz == BYTE_ONE
  -- A daily rule's days off: the last field, digits only (the freezes' field, before it, has commas).
  local days = string.match(rule, '|([0-6]+)$')
  if days and plan.letter == 'd' then
    local off = {n = #days}
    for i = 1, #days do off[string.byte(days, i) - BYTE_ZERO] = true end
    plan.off = off
  end
end

local hotPlan

-- The plan of a user with streak preferences: the metric's plan with the user's rule in place of
-- the tenant's, and the token of the preferences the api compiled it from.
local function userPlan(id, full)
  local base = hotPlan(string.sub(id, 1, 16), full)
  if not base then return nil end
  local plan = {}
  for k, v in pairs(base) do plan[k] = v end
  local rule = string.sub(id, 33)
  plan.token, plan.rule, plan.ruleDetails = string.sub(id, 17, 32), rule, false
  plan.letter, plan.mode, plan.all, plan.sa, plan.fz, plan.off = nil, nil, false, false, false, nil
  ruleFlags(plan, rule)
  if hotPlanCount >= 1024 then hotPlans, hotPlanCount = {}, 0 end
  hotPlans[id] = plan
  hotPlanCount = hotPlanCount + 1
  return plan
end

hotPlan = function(id, full)
  local plan = hotPlans[id]
  if plan then return plan end
  if #id > 16 then return userPlan(id, full) end
  if full == '' then return nil end
  local total, hot, details = string.match(full, '^([^\n]*)\n([^\n]*)\n(.*)$')
  local ach, rule, points = string.match(hot, '^([^#]*)#([^#]*)#(.*)$')
  local anniv
  local rest, years = string.match(points, '^([^#]*)#(%d+)$')
  if rest then points, anniv = rest, years + 0 end
  local thresholds = {}
  for goal, filter in string.gmatch(ach, '([^,:]+):?(%d*)') do
    thresholds[#thresholds + 1] = {goal = tonumber(goal), filter = tonumber(filter)}
  end
  plan = {total = total, high = 'h' .. total, details = details, ach = ach, rule = rule, points = points, anniv = anniv, thresholds = thresholds,
    letter = nil, mode = nil, all = false, sa = false, fz = false, fast = nil, decoded = false,
    ruleDetails = false, triggers = false, token = false}
  ruleFlags(plan, rule)
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

--[[
  pointsTriggers(plan) -> the plan's points part (<points>, recordEventPlan's header), parsed once
  per plan, when an event first takes the general points path, and kept as plan.triggers:
    creation, streak, achievement   whether triggers of that kind exist
    fields          the user hash fields such an event reads: 'tz', 'id', 's', 's:pz', the total,
                    its highest point, 's:ov' (7th), 'x' (8th: the user's exclusion), 'ck' (9th:
                    the user's clock, lua/includes/clock.lua), then
                    'tt:<trigger id>' per time trigger and 'pt:<system
                    id>', 'pn:<system id>' per system of the metric's triggers
    systems         system id -> the position of its 'pt:' field in `fields`
    time            per time trigger {interval (ms), field ('tt:<trigger id>'), position (in
                    `fields`)}; nil without
    metric          per points trigger of the metric, in the order of <points> (and of the
                    details' p.m) {every (T), filter (its position in <matches>, or nil), points
                    (P), block, userFiltered, cap (or nil), trigger, system, sumField and
                    highField (its running sum and that sum's highest point, for a filtered
                    trigger, in the user-metric hash)}; nil without
]]
local function pointsTriggers(plan)
  local kinds, list, times = string.match(plan.points, '^(....)|([^|]*)|(.*)$')
  local creation, streak, achievement = string.byte(kinds, 1, 3)
  local fields = {'tz', 'id', 's', 's:pz', plan.total, plan.high, 's:ov', 'x', 'ck'}
  local systems, time, metric = {}, nil, nil
  if times ~= '' then
    time = {}
    for interval, id in string.gmatch(times, '(%d+),([^;]+)') do
      time[#time + 1] = {interval = interval + 0, field = 'tt:' .. id, position = #fields + 1}
      fields[#fields + 1] = 'tt:' .. id
    end
  end
  if list ~= '' then
    metric = {}
    for T, f, P, b, u, cap, id, sys in string.gmatch(list, '(%d+),(%d*),(%-?%d+),(%d?),(%d?),(%d*),([^,]+),([^;]+)') do
      metric[#metric + 1] = {every = T + 0, filter = tonumber(f), points = P + 0, block = b == '1', userFiltered = u == '1',
        cap = tonumber(cap), trigger = id, system = sys, sumField = 'q:' .. id, highField = 'hq:' .. id}
      if not systems[sys] then
        systems[sys] = #fields + 1
        fields[#fields + 1] = 'pt:' .. sys
        fields[#fields + 1] = 'pn:' .. sys
      end
    end
  end
  local triggers = {creation = creation == BYTE_ONE, streak = streak == BYTE_ONE, achievement = achievement == BYTE_ONE,
    fields = fields, systems = systems, time = time, metric = metric}
  plan.triggers = triggers
  return triggers
end
