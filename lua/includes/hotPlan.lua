--[[
  The plan's hot part (recordEventPlan <hot>), parsed: a pure function of the string, memoised
  by it. Every event of a metric sends the same <hot> until its configuration changes, so the
  parse (two patterns, nine captures and the field names built from them, about 12,000
  instructions an event) runs once per plan instead of once per event.

  The memo holds only what the argument itself says, never data: an event gets the same answer
  with or without it, so a library that was reloaded (FUNCTION LOAD, a restart, a failover)
  merely parses again, and a replica or an AOF replay computes what the primary did. Bounded: it
  starts over once it holds 256 plans (a plan changes only with the configuration).

  joined(a, b) -> a .. b, joined once per pair (a join makes and interns a string, about 1,200
  instructions): the names every event builds from its arguments, the partition's log key
  (joined(slot, 'log')) and the field of the total's highest point (joined('h', totalField)).
  Bounded like the plans: at most 4,096 first parts, each with the few second parts events use.

  planDetails(arg) -> the plan's details (JSON) as recordEventPlan's ARGV[5] names them, or nil:
    ''              no details: ''
    '<id>'          the details this library was sent with that id (16 hex digits, a digest of
                    the JSON: one id, one content); nil when it does not hold them (first use,
                    a reload, a failover): the script answers so before writing, and the api
                    sends them again in full
    '<id>|<json>'   the details themselves, remembered under <id>
  The details run to hundreds of bytes a plan, and Redis's Lua hashes every byte of every string
  it makes (about 7 instructions a byte): sent once, not with every event. Bounded like the plans:
  it starts over once it holds 1,024 (a miss costs one more round trip, never a wrong answer).

  hotPlan(hot) -> {ach, rule, points, thresholds, letter, mode, fast}, shared: callers must not
  change it.
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

local function hotPlan(hot)
  local plan = hotPlans[hot]
  if plan then return plan end
  local ach, rule, points = string.match(hot, '^([^#]*)#([^#]*)#(.*)$')
  local thresholds = {}
  for goal, filter in string.gmatch(ach, '([^,:]+):?(%d*)') do
    thresholds[#thresholds + 1] = {tonumber(goal), tonumber(filter)}
  end
  plan = {ach = ach, rule = rule, points = points, thresholds = thresholds, letter = nil, mode = nil, fast = nil}
  if rule ~= '' then plan.letter, plan.mode = string.sub(rule, 1, 1), string.byte(rule, 2) - 48 end
  local T, P, block, cap, trigger, system = string.match(points, '^0000|(%d+),,(%-?%d+),(%d?),,(%d*),([^,;]+),([^;]+)|$')
  if T then
    plan.fast = {T = T + 0, P = P, block = block == '1', cap = cap ~= '' and cap + 0 or nil, trigger = trigger,
      system = system, pt = 'pt:' .. system, pn = 'pn:' .. system}
  end
  if hotPlanCount >= 256 then hotPlans, hotPlanCount = {}, 0 end
  hotPlans[hot] = plan
  hotPlanCount = hotPlanCount + 1
  return plan
end

local detailsMemo, detailsCount = {}, 0

local function planDetails(arg)
  if arg == '' then return '' end
  if #arg == 16 then return detailsMemo[arg] end
  local id, json = string.sub(arg, 1, 16), string.sub(arg, 18)
  if not detailsMemo[id] then
    if detailsCount >= 1024 then detailsMemo, detailsCount = {}, 0 end
    detailsMemo[id] = json
    detailsCount = detailsCount + 1
  end
  return json
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
