--[[
  Phase 1 of a metric event with features (achievements, a streak or points triggers), on the
  user's partition: idempotency check, user upsert, metric total, the day's summary bucket, the
  streak, achievements the event completes, points awards, and one entry on the partition's event
  log. Pure: time,
  periods and configuration (the metric's compiled plan) come in as arguments.

  What every event needs of the plan arrives as a compact string (<hot> in ARGV[1]); the plan's
  details (ARGV[5], JSON) are decoded only when something completes. The streak goes back to the
  api as stored: the api works out how it stands (lua/includes/streak.lua has the format), so
  events in a period already covered only compare two numbers here, and an event that meets the
  rule on its own (the api says so in the flags) extends it without reading the rule.

  KEYS[1] user hash              <slot>user:<tenant>:<uid>
  KEYS[2] user-metric hash       <slot>um:<metricId>:<tenant>:<uid>   d:<day> -> change, i:<key> -> event id
  KEYS[3] partition user set     <slot>users:<tenant>
  KEYS[4] partition event log    <slot>log
  KEYS[5] completion counters    <slot>achc:<tenant>
  KEYS[6] streak history         <slot>sh:<tenant>:<uid>
  KEYS[7] points key base        <slot>up:<tenant>:<uid>:     (lua/includes/points.lua)

  ARGV[1] the event's small arguments in one string (each KEYS or ARGV element costs about 1,700
          instructions, a capture about 500):
          '<flags>|<total field>|<value>|<day field>|<zone>|<event id>|<matches>|<periods>|<hot>'
            flags       one character each: '1' when the request sets the time zone (then it is
                        <zone>); '1' when it sets subscribeToEmails to true without an email; '1'
                        when the value is an integer; '1' when the event meets the streak rule by
                        itself (the rule has one metric, or evaluation `any`, and the value reaches
                        this metric's threshold). Then, when the idempotency window is finite:
                        ':<now ms>:<expiry ms of a key used now>'
            total field the metric's total in the user hash: 'm:<metricId>'
            value       a decimal string
            day field   'd:<local day of the event in <zone>>'
            zone        the time zone assumed for the day and the periods; '' is UTC
            event id    the event's id (awards are named after it)
            matches     '1'/'0' per event-filtered achievement or points trigger of the plan:
                        whether this event matches
            periods     '<period>:<day>' of the event in <zone>, then ':<period in the zone of the
                        streak>' after a zone change; '' without a streak rule
            hot         the plan's hot part: '<thresholds>#<rule>#<points>'. thresholds: the
                        metric achievements' as 'v' or 'v:f' (f: the position in <matches>),
                        comma-separated, the filtered ones first, then the others in ascending
                        order; rule: '' or '<f><mode><all><sa><fz>|<position>|<t>;<t>...|<i>,<x>,<n>,<a>'
                        (one character each: the frequency letter; 1: the metric is not in the
                        rule, 2: it is; 1 for evaluation all; 1 when streak achievements exist; 1
                        when freezes are configured. Then this metric's position in the rule, the
                        thresholds, and the freezes or ''); points: '' or '<triggers>|<c><k><a>':
                        the metric's points triggers as 'T' or 'T:f' (every T units; f as above),
                        comma-separated, then '1' or '0' each: user-creation, streak and
                        achievement triggers exist
  ARGV[2] idempotency: '' when no key was sent, else '<event id, 36 characters>i:<key>'
  ARGV[3] creation: '<now, ISO-8601, 24 characters><user id>'
  ARGV[4] the event log entry without its closing brace (JSON, built by the api: one field keeps
          XADD cheap); an event that extends the streak adds "sx": "<the stored state>" to it
  ARGV[5] the plan's details (JSON, decoded only when something completes or awards): m = the
          metric achievements (in the order of <hot>), c = composites, sa = streak achievements,
          p = points (src/domain/points.ts PointsDetails)
  ARGV[6...] user hash field/value pairs of the identification

  Returns
    {1, total, created, streak, awards, id...}  processed; created is 1 for a new user; streak
                          is {stored state, pauses, extended} ('' without a rule); awards the
                          points awarded, flat {system id, trigger id, awarded, total, ...} (''
                          without); then the ids of the achievements this event completed
    {2, eventId, total, streak}  idempotent replay: the key was used before, nothing changed
    {-1, storedTz}        the stored time zone is not <zone>: nothing changed, recompute
    {-2}                  subscribeToEmails true without an email: nothing changed
    {-7, streakTz}        the streak's last period was judged in another zone: send the period
                          in that zone too (<periods>); nothing changed
    {-8, systemId}        a trigger that refuses to take the total below 0 would: nothing changed
]]
local userKey = KEYS[1]
local userMetricKey = KEYS[2]
local usersKey = KEYS[3]
local logKey = KEYS[4]
local countsKey = KEYS[5]
local historyKey = KEYS[6]
local pointsBase = KEYS[7]

local flags, totalField, value, dayField, assumedTz, eventId, matches, periods, hot = string.match(ARGV[1],
  '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|(.*)$')
local idempotency = ARGV[2]
local creation = ARGV[3]
local logEntry = ARGV[4]
local plan = ARGV[5]

--- @include "addNumber"
--- @include "canSubscribe"
--- @include "writeUser"
--- @include "eventCore"
--- @include "completeAchievements"
--- @include "streak"
--- @include "points"

local isInteger = string.byte(flags, 3) == 49
local nowMs, expiresAt = eventWindow(flags)

local achHot, ruleHot, pointsHot = string.match(hot, '^([^#]*)#([^#]*)#(.*)$')
-- The rule's frequency letter and mode are read in place; the rest only when an event needs it.
local letter, mode
if ruleHot ~= '' then letter, mode = string.sub(ruleHot, 1, 1), string.byte(ruleHot, 2) - 48 end
local p -- the decoded details, when needed
local pc -- the points context, when the plan has points
local function details()
  if not p then
    p = cjson.decode(plan)
    if pc then pc.caps = p.p.s end
  end
  return p
end

local replay = eventReplay(userKey, userMetricKey, totalField, idempotency, nowMs)
if replay then
  if letter then replay[4] = {redis.call('HGET', userKey, 's') or '', redis.call('HGET', userKey, 's:pz') or '', 0} end
  return replay
end

-- The metric's points triggers and which other kinds exist ('' when none).
local metricTriggers, pointsFlags
if pointsHot ~= '' then metricTriggers, pointsFlags = string.match(pointsHot, '^([^|]*)|(.*)$') end
local highField -- the highest total the metric had before it last fell
local stored
if metricTriggers ~= nil and metricTriggers ~= '' then
  highField = 'h' .. totalField
  stored = redis.call('HMGET', userKey, 'tz', 'id', 's', 's:pz', totalField, highField)
elseif letter then
  stored = redis.call('HMGET', userKey, 'tz', 'id', 's', 's:pz')
else
  stored = redis.call('HMGET', userKey, 'tz', 'id')
end
local refusal = eventRefusal(userKey, stored, flags, assumedTz)
if refusal then return refusal end

-- The streak, when this event may extend it: a period not covered yet (in both zones after a move).
local period, day, periodOld, st
if mode == 2 then
  local a, b, c = string.match(periods, '^(%-?%d+):(%-?%d+):?(%-?%d*)$')
  period = a + 0
  local f, last = string.match(stored[3] or '', '^(%a?)|%-?%d*|(%-?%d*)|')
  if f ~= letter or last == '' or last == nil or period > last + 0 then
    day = b + 0
    if c ~= '' then periodOld = c + 0 end
    st = parseStreak(stored[3])
    st.pz = stored[4]
    if st.f ~= letter then st.len, st.last, st.start, st.p = 0, nil, nil, nil end
    if st.last ~= nil then
      if periodOld == nil and st.tz ~= assumedTz then return {-7, st.tz} end
      if periodOld ~= nil and periodOld <= st.last then st = nil end
    end
  end
end

local stamp = string.sub(creation, 1, 24)
local total = addNumber(userKey, totalField, value, isInteger)

-- Points before anything else is written: an event that a trigger refuses changes nothing.
if pointsHot ~= '' then
  pc = pointsContext(userKey, pointsBase, p and p.p.s, eventId, stamp, dayField)
  local pending -- the request's own attributes, not written yet
  local function userMatches(ua)
    if not ua then return true end
    if not pending then
      pending = {}
      for i = 6, #ARGV, 2 do pending[ARGV[i]] = ARGV[i + 1] end
    end
    return attributesMatch(userKey, ua, pending)
  end
  local function triggers(kind)
    return details().p[kind]
  end
  -- A new user's creation awards first: what they grant, this event may spend.
  if stored[2] == false and string.byte(pointsFlags, 1) == 49 then
    for _, t in ipairs(triggers('c')) do
      if userMatches(t.ua) then pointsAward(pc, t, 1) end
    end
  end
  if highField then
    local old, new, high = tonumber(stored[5] or '0'), tonumber(total), tonumber(stored[6] or '')
    local undo = {}
    local k = 0
    for threshold, filter in string.gmatch(metricTriggers, '([^,:]+):?(%d*)') do
      k = k + 1
      local from, to
      if filter == '' then
        from, to = old, new
        if high and high > from then from = high end
      elseif string.byte(matches, filter + 0) == 49 then
        -- Only the events matching its filters count: the trigger's own running sum.
        local t = triggers('m')[k]
        local sums = redis.call('HMGET', userMetricKey, t.pf, 'h' .. t.pf)
        undo[#undo + 1] = {t.pf, sums[1]}
        from, to = tonumber(sums[1] or '0'), tonumber(addNumber(userMetricKey, t.pf, value, isInteger))
        if to < from and (sums[2] == false or from > sums[2] + 0) then
          redis.call('HSET', userMetricKey, 'h' .. t.pf, sums[1])
          undo[#undo + 1] = {'h' .. t.pf, sums[2]}
        elseif sums[2] and sums[2] + 0 > from then
          from = sums[2] + 0
        end
      end
      if from and to > from then
        local T = threshold + 0
        local times = (to - to % T) / T - (from - from % T) / T
        if times > 0 then
          local t = triggers('m')[k]
          if userMatches(t.ua) and not pointsAward(pc, t, times) then
            -- Refused: put back what this script wrote, and say which system.
            if stored[5] then redis.call('HSET', userKey, totalField, stored[5]) else redis.call('HDEL', userKey, totalField) end
            for _, u in ipairs(undo) do
              if u[2] then redis.call('HSET', userMetricKey, u[1], u[2]) else redis.call('HDEL', userMetricKey, u[1]) end
            end
            return {-8, t.s}
          end
        end
      end
    end
    -- A total that falls remembers its highest point, so rising to it again awards nothing.
    if new < old and (high == nil or old > high) then redis.call('HSET', userKey, highField, stored[5]) end
  end
end

local created = eventRest(userKey, userMetricKey, usersKey, stored[2] ~= false, value, isInteger, dayField, idempotency,
  expiresAt, creation, ARGV, 6)
if pc then pointsCommit(pc) end

local reply = {1, total, created, '', ''}
-- A metric achievement completes on the event that takes its total across the threshold.
if achHot ~= '' then
  local v = tonumber(value)
  local newTotal = tonumber(total)
  local k = 0
  for threshold, filter in string.gmatch(achHot, '([^,:]+):?(%d*)') do
    k = k + 1
    local goal = tonumber(threshold)
    -- The unfiltered thresholds come last, in ascending order: none after this one is reached.
    if filter == '' and goal > newTotal then break end
    local now = newTotal
    if filter ~= '' then
      now = nil
      if string.byte(matches, tonumber(filter)) == 49 then
        now = tonumber(addNumber(userMetricKey, details().m[k].pf, value, isInteger))
      end
    end
    if now and now >= goal and now - v < goal then complete(userKey, countsKey, details().m[k], stamp, reply) end
  end
end
if letter then
  local extended = false
  local packed = stored[3] or ''
  if st then
    local before
    extended, before, packed = streakUpdate(userKey, historyKey, ruleHot, st, period, periodOld, day, value,
      string.byte(flags, 4) == 49, stamp, assumedTz)
    if extended and string.byte(ruleHot, 4) == 49 then
      for _, a in ipairs(details().sa) do
        if before < a.l and st.len >= a.l then complete(userKey, countsKey, a, stamp, reply) end
      end
    end
  end
  reply[4] = {packed, stored[4] or '', extended and 1 or 0}
  -- The log carries an extension to the workers, which keep the tenant's streak rankings.
  if extended then
    logEntry = logEntry .. ',"sx":"' .. packed .. '"'
    if pc and string.byte(pointsFlags, 2) == 49 then
      for _, t in ipairs(details().p.k) do
        if st.len % t.l == 0 and attributesMatch(userKey, t.ua, nil) then pointsAward(pc, t, 1) end
      end
    end
  end
end
if #reply > 5 then
  cascade(userKey, countsKey, details().c, stamp, reply)
  if pc and string.byte(pointsFlags, 3) == 49 then
    local byAchievement = details().p.a
    for i = 6, #reply do
      for _, t in ipairs(byAchievement[reply[i]] or {}) do
        if attributesMatch(userKey, t.ua, nil) then pointsAward(pc, t, 1) end
      end
    end
  end
end
if pc and #pc.awards > 0 then
  pointsCommit(pc)
  reply[5] = pc.awards
  logEntry = logEntry .. ',"pa":' .. cjson.encode(pc.awards)
end
redis.call('XADD', logKey, '*', 'event', logEntry .. '}')
return reply
