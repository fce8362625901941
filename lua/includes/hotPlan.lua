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

  joined(a, b) -> a .. b, joined once per pair (a join makes and interns a string, about 1,200
  instructions): the field of the total's highest point (joined('h', totalField)), one per
  metric. Bounded like the plans: at most 4,096 first parts, each with the few second parts events
  use. Not for names with one first part per partition (the log key): a memo of hundreds of
  tables costs more than the joins it saves, since Redis runs a step of Lua's collector every 50
  calls and each cycle walks every live object (500 instructions an event more with the log key
  in it).

  hotPlan(id, full) -> the plan of that id; `full` ('<total field>\n<hot>\n<details>', or '')
  gives it when the library does not hold it; nil when neither does. The plan is
  {total, details, ach, rule, points, thresholds, letter, mode, fast}, shared: callers must not
  change it.
    total              the metric's total field in the user hash ('m:<metricId>')
    details            the plan's details, JSON (recordEventPlan ARGV[5])
    ach, rule, points  the three parts of <hot> ('' when absent)
    thresholds         the metric achievements' ({goal, position in <matches> or nil}), in the
                       order of <ach>
    letter, mode       the rule's frequency letter and mode (1: the metric is not in the rule,
                       2: it is); nil without a rule
    fast               the usual points plan (one points trigger, on this metric, with no filter,
                       no other kind of trigger): {T, P (text), block, cap, trigger, system, pt,
                       pn (the system's total and award-count fields)}; nil otherwise
]]
local hotPlans, hotPlanCount = {}, 0

local function hotPlan(id, full)
  local plan = hotPlans[id]
  if plan then return plan end
  if full == '' then return nil end
  local total, hot, details = string.match(full, '^([^\n]*)\n([^\n]*)\n(.*)$')
  local ach, rule, points = string.match(hot, '^([^#]*)#([^#]*)#(.*)$')
  local thresholds = {}
  for goal, filter in string.gmatch(ach, '([^,:]+):?(%d*)') do
    thresholds[#thresholds + 1] = {tonumber(goal), tonumber(filter)}
  end
  plan = {total = total, details = details, ach = ach, rule = rule, points = points, thresholds = thresholds,
    letter = nil, mode = nil, fast = nil}
  if rule ~= '' then plan.letter, plan.mode = string.sub(rule, 1, 1), string.byte(rule, 2) - 48 end
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

local joins, joinCount = {}, 0

local function joined(a, b)
  local byA = joins[a]
  if not byA then
    if joinCount >= 4096 then joins, joinCount = {}, 0 end
    byA = {}
    joins[a] = byA
    joinCount = joinCount + 1
  end
  local s = byA[b]
  if not s then
    s = a .. b
    byA[b] = s
  end
  return s
end
