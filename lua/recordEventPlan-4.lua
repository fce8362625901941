--[[
  Phase 1 of a metric event with features (achievements, a streak or points triggers), on the
  user's partition: idempotency check, user upsert, metric total, the day's summary bucket, the
  streak, achievements the event completes, points awards, and one entry on the partition's event
  log. Pure: time,
  periods and configuration (the metric's compiled plan) come in as arguments.

  The metric's plan (its total field, a compact hot part every event reads, and details as JSON,
  decoded only when something completes) arrives by id (<plan> in ARGV[1]), in full (ARGV[5])
  only when the library does not hold it (lua/includes/hotPlan.lua). The streak goes back to the
  api as stored: the api works out how it stands (lua/includes/streak.lua has the format), so
  events in a period already covered only compare two numbers here, and an event that meets the
  rule on its own (the api says so in the flags) extends it without reading the rule.

  KEYS[1] user hash              <slot>user:<tenant>:<uid>
  KEYS[2] user-metric hash       <slot>um:<metricId>:<tenant>:<uid>   d:<day> -> change, i:<key> -> event id
  KEYS[3] the partition's slot   <slot> = <prefix>:{p<N>}:    the base of the keys this script
          builds, each only when the event writes it (a key in KEYS costs the event whether it is
          written or not, and more than a join), as src/redis/keys.ts names them (forUser):
            partition user set     <slot>users:<tenant>            a new user
            completion counters    <slot>achc:<tenant>             an achievement completes
            streak history         <slot>sh:<tenant>:<uid>         the streak's run ends
                                                                   (lua/includes/streak.lua)
            points key base        <slot>up:<tenant>:<uid>:        an award (lua/includes/points.lua)
            partition points totals <slot>ptt:<tenant>:<systemId>  an award: uid -> total
            the partition's due set <slot>ptdue                    time triggers start counting
            the partition's anniversary due set <slot>anndue       a new user, with anniversary
                                                                   achievements
          where '<tenant>:<uid>' is the user hash's name after '<slot>user:'.
  KEYS[4] partition event log  <slot>log   stream (written by every event processed)

  ARGV[1] the event's small arguments in one string (each KEYS or ARGV element costs more than
          a capture):
          '<flags>|<value>|<day field>|<zone>|<now ms>|<tenant>|<matches>|<period>|<periods>|<boards>|<limits>|<clock>|<accepted>|<plan>'
            flags       one character each: '1' when the request sets the time zone (then it is
                        <zone>); '1' when it sets subscribeToEmails to true without an email; '1'
                        when the value is an integer; '1' when the event meets the streak rule by
                        itself (the rule has one metric, or evaluation `any`, and the value reaches
                        this metric's threshold). Then, when the idempotency window is finite:
                        ':<now ms>:<expiry ms of a key used now>'
            value       a decimal string
            day field   'd:<the event's day on the user's clock>'
            zone        the time zone assumed for the day and the periods; '' is UTC
            now ms      the event's time, ms since the epoch (the date of its awards)
            tenant      the user's tenant ('_' or its uuid): the due sets' member is
                        '<tenant>|<user id>'
            matches     '1'/'0' per event-filtered achievement or points trigger of the plan:
                        whether this event matches
            period      the streak period of the event on the user's clock ('' without a
                        streak rule)
            periods     '<day>' (the event's day index on the user's clock); '' without a streak
                        rule
            boards      what the metric's leaderboards need of this event: '<run fields>#<attribute
                        fields>', each list comma-separated: the run sums to add the value to in
                        the user-metric hash ('r:<board id>:<run>'), and the user hash's fields
                        to read: breakdown attributes ('a:<key>') and league places
                        ('lg:<board id>'); '' when none
            limits      '' when neither the metric nor a trigger its events may fire has limits; else
                        the user's clock, then the metric's limit, then '=' for a replay of what a
                        logged event counted (lua/includes/limits.lua)
            clock       what the api assumed of the user's clock: the hour the event counts in,
                        held or not, and the days it jumps over (lua/includes/clock.lua)
            accepted    a batch item's chunk id in the partition's batch queue, '' for an event
                        (lua/includes/fence.lua)
            plan        the plan's id (16 hex digits); for a user with streak preferences, that
                        id, the preferences' token ('s:ov') and the user's rule for this metric
                        (lua/includes/hotPlan.lua userPlan), the rule in the form of <rule> below
  The plan, as ARGV[5] sends it in full: '<total field>\n<hot>\n<details>'
            total field the metric's total in the user hash: 'm:<metricId>'
            hot         the plan's hot part: '<thresholds>#<rule>#<points>', then '#<years>'
                        with anniversary achievements (the fewest years among them). thresholds: the
                        metric achievements' as 'v' or 'v:f' (f: the position in <matches>),
                        comma-separated, the filtered ones first, then the others in ascending
                        order; rule: '' or '<f><mode><all><sa><fz>|<position>|<t>;<t>...|<i>,<x>,<n>,<a>'
                        (one character each: the frequency letter; 1: the metric is not in the
                        rule, 2: it is; 1 for evaluation all; 1 when streak achievements exist; 1
                        when freezes are configured. Then this metric's position in the rule, the
                        thresholds, and the freezes or ''); points: '' or
                        '<c><k><a><t>|<trigger>;...|<time trigger>;...': '1' or '0' each:
                        user-creation, streak, achievement and time triggers exist; then the
                        metric's points triggers, each 'T,f,P,b,u,cap,<trigger id>,<system id>'
                        (every T units, f as above or '', P points, b '1' when it refuses to go
                        below 0, u '1' when it has a user filter, cap the system's maxPoints or
                        ''); then the time triggers, each '<interval ms>,<trigger id>'
  ARGV[2] creation: '<now, ISO-8601, 24 characters><user id>'
  ARGV[3] the event log entry (JSON, built by the api), its 'event' field; an event that extends
          the streak adds a field 'sx' (the stored state) and, when the user has pauses, 'sp'
          (them, as 's:pz' holds them), one that awards points a field 'pa'
          (the awards, below), one that completes achievements a field 'ac' (their ids, a JSON
          list), which the log drainer puts back into the body as "sx", "pa" and "ac"
  ARGV[4] idempotency: '' when no key was sent, else '<event id, 36 characters>i:<key>'
  ARGV[5] '' (the plan by its id alone), or the plan in full (above) once the script answered
          that it does not hold it
            details     JSON, decoded only when something completes or awards: m = the metric
                        achievements (in the order of <hot>), c = composites, sa = streak
                        achievements, p = points (src/domain/points/rules.ts PointsDetails)
  ARGV[6] the boosts that may apply (JSON, src/domain/points/rules.ts boostsFor) or ''
  ARGV[7...] user hash field/value pairs of the identification, maybe ending with the breakdown
          marker (lua/includes/writeUser.lua)
  Without pairs, the api leaves out the trailing empty arguments (absent reads as ''): Redis builds
  ARGV element by element into a table that grows by doubling.

  Returns
    processed: one string of nine fields separated by '\n' (none holds a newline but the last,
    which is JSON; the total is followed by '|<the part of the value counted>' when the
    metric's limit bit):
      '<total>\n<created>\n<streak>\n<pauses>\n<extended>\n<awards>\n<completed>\n<seq>\n<boards>'
                          total the metric's total as Redis holds it; created '1' for a new user,
                          'x' for a user excluded from the rankings (the user hash's 'x':
                          src/engine/fairplay/exclude.ts; the log entry then carries 'ex': '1'),
                          else '0'; streak, pauses, extended: the stored state, the stored pauses
                          and '1' when this event extended the streak ('', '', '0' without a
                          rule); awards the points awarded, as the JSON the log carries: a list of [system
                          id, trigger id, awarded, total, n, boost ids] ('' without; n
                          numbers the user's awards in the system); completed the ids of the
                          achievements this event completed, comma-separated; seq the id of the
                          event's log entry (phase 2 orders the user's placements by it); boards the run sums
                          and attribute values asked for in <boards>, a JSON array of strings (''
                          without). When the identification moved the user's breakdown
                          attributes (only then), a tenth field: what moved, as JSON
                          (lua/includes/writeUser.lua)
    {2, eventId, total, streak}  idempotent replay: the key was used before, nothing changed
    {-1, storedTz}        the stored time zone is not <zone>: nothing changed, recompute
    {-2}                  subscribeToEmails true without an email: nothing changed
    {-7, clock}           the user's clock ('ck', '' when none) is not what <clock> assumed:
                          nothing changed, work the event's hour out again from it
    {-19}                 a batch item accepted before the user's erasure (its fence): nothing
                          changed, the item is dropped
    {-8, systemId}        a trigger that refuses to take the total below 0 would: nothing changed
    {-17, systemId}       a metric trigger's award would take the total past 2^53 - 1: nothing
                          changed
    {-9}                  a time trigger's award is due (or never counted for this user): the
                          api accrues it (accruePoints), then sends the event again; nothing
                          changed
    {-10}                 the library does not hold the plan: nothing changed, send it in full
                          (ARGV[5])
    {-11}                 the metric's total would leave a double's range: nothing changed
    {-12, token, prefs}   the user's streak preferences ('s:ov', '' when none, and 's:o') are not
                          the ones <plan> was compiled from: nothing changed, send the plan of
                          these
    {-13}                 with anniversary achievements: the user's next anniversary ('an') is
                          the event's day or before it, or was never worked out: the api
                          completes what came (src/engine/achievements/anniversaries.ts), then
                          sends the event again; nothing changed
]]
local userKey = KEYS[1]
local userMetricKey = KEYS[2]
local slot = KEYS[3]
local logKey = KEYS[4]
local scope -- '<tenant>:<uid>' of the user's keys, once a key needs it

local flags, value, dayField, assumedTz, nowStamp, tenant, matches, periodText, periods, boards, limitsArg, clockArg, accepted, planId =
  string.match(ARGV[1], '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|(.*)$')
local creation = ARGV[2]
local nowIso -- creation's ISO-8601 part, once something needs it
local logEntry = ARGV[3]
local idempotency = ARGV[4] or ''
local boosts = ARGV[6] or ''

--- @include "bytes"
--- @include "addNumber"
--- @include "canSubscribe"
--- @include "writeUser"
--- @include "eventCore"
--- @include "completeAchievements"
--- @include "streak"
--- @include "points"
--- @include "hotPlan"
--- @include "anniversary"
--- @include "clock"
--- @include "fence"
--- @include "logAdd"

-- A call of a Lua function costs more than the test that avoids it: the usual event's cases are
-- tested here, and the helpers called only when they have something to do (a plan or flags not in
-- the memo, a window, a key, a zone to compare or an email to check).
local planned = hotPlans[planId] or hotPlan(planId, ARGV[5] or '')
if not planned then return {-10} end
local totalField = planned.total

local flag = flagTables[flags] or eventFlags(flags)
local isInteger = flag.integer
local metAlone = flag.metAlone
local pc -- the points context, when the plan has points
local nowMs, expiresAt
if #flags > 4 then nowMs, expiresAt = eventWindow(flags) end

local achHot, pointsHot = planned.ach, planned.points
-- The rule's frequency letter and mode; the rest of the rule only when an event needs it.
local letter, mode = planned.letter, planned.mode

local replay = idempotency ~= '' and eventReplay(userKey, userMetricKey, totalField, idempotency, nowMs)
if replay then
  if letter then replay[4] = {redis.call('HGET', userKey, 's') or '', redis.call('HGET', userKey, 's:pz') or '', 0} end
  return replay
end

-- Points off the usual plan: which kinds of triggers exist, the metric's own triggers with their
-- systems, and the time triggers (lua/includes/hotPlan.lua pointsTriggers).
local triggers, metricTriggers, timeTriggers
local stored
-- The usual plan: one points trigger, on this metric, with no filters and no boosts, and no other
-- kind of trigger: awarded without a points context.
local fast = boosts == '' and planned.fast or nil
local ov -- where 's:ov' is in `stored`: the token of the user's streak preferences; 'x' and 'ck' follow it
if fast then
  stored = redis.call('HMGET', userKey, 'tz', 'id', 's', 's:pz', totalField, planned.high, fast.pt, fast.pn, 's:ov', 'x', 'ck')
  ov = 9
elseif pointsHot ~= '' then
  triggers = planned.triggers or pointsTriggers(planned)
  metricTriggers, timeTriggers = triggers.metric, triggers.time
  stored = redis.call('HMGET', userKey, unpack(triggers.fields))
  ov = 7
  scope = string.sub(userKey, #slot + 6)
  pc = pointsContext(userKey, slot .. 'up:' .. scope .. ':', nowStamp, dayField, boosts)
  for sys, i in pairs(triggers.systems) do pointsLoad(pc, sys, stored[i], stored[i + 1]) end
elseif letter then
  stored = redis.call('HMGET', userKey, 'tz', 'id', 's', 's:pz', 's:ov', 'x', 'ck')
  ov = 5
else
  stored = redis.call('HMGET', userKey, 'tz', 'id', 's:ov', 'x', 'ck')
  ov = 3
end
-- An excluded user's event counts toward their own state, and is placed on no ranking.
local excluded = stored[ov + 1]
-- The api sent the plan of the user's streak preferences as it knows them (none: the metric's
-- own, whose token is false, as HMGET answers an absent field).
if stored[ov] ~= planned.token then return {-12, stored[ov] or '', redis.call('HGET', userKey, 's:o') or ''} end
if flag.needsEmail or (not flag.setsZone and (stored[1] or '') ~= assumedTz) then
  local refusal = eventRefusal(userKey, stored, flag, assumedTz)
  if refusal then return refusal end
end
-- The user's clock as the api assumed it (lua/includes/clock.lua), and the days it jumped over.
local clockOk, jumpFirst, jumpLast, clockField = clockTake(stored[ov + 2], clockArg, nowStamp)
if not clockOk then return {-7, stored[ov + 2] or ''} end
if accepted ~= '' and fenced(logKey, userKey, accepted) then return {-19} end
-- A returning user with a time award due (or a time trigger never counted for them): the api
-- accrues first, so that this event sees (and may spend) what time granted.
if timeTriggers and stored[2] then
  local now = nowStamp + 0
  for _, t in ipairs(timeTriggers) do
    local next = stored[t.position]
    if not next or next + 0 <= now then return {-9} end
  end
end
-- A returning user whose next anniversary has come on their calendar (the event's day, in the zone
-- the event sets or the stored one, checked above), or who was never looked at: the api completes
-- the anniversary achievements first.
if planned.anniv and stored[2] then
  local coming = redis.call('HGET', userKey, 'an')
  if not coming or coming <= string.sub(dayField, 3) then return {-13} end
end

-- Limits (lua/includes/limits.lua): the part of the value the metric's limit lets count, written
-- with the day; the triggers' limits go with the points context.
local limitTimes, limitField, countedText
if limitsArg ~= '' then
  local max, letter, replay
  limitTimes, max, letter, replay = limitClock(limitsArg)
  if max then
    local counted, field, limited = limitTake(userMetricKey, limitTimes, max, letter, replay, value)
    limitField = field
    if limited then
      value, countedText, metAlone = counted, counted, false
      isInteger = isInteger and (counted + 0) % 1 == 0
      -- The log entry says what counted (rare: joined only here).
      logEntry = string.sub(logEntry, 1, -2) .. ',"lc":' .. counted .. '}'
    end
  end
  if pc and planDetails(planned).p and planDetails(planned).p.r then
    pc.limits, pc.times, pc.limitState = planDetails(planned).p.r, limitTimes, {}
  end
end

-- The streak, when this event may extend it: a period not covered yet.
local period, day, st
if mode == 2 then
  period = periodText + 0
  local f, last -- a new user's streak needs no match
  if stored[3] then f, last = string.match(stored[3], '^(%a?)|%-?%d*|(%-?%d*)|') end
  if f ~= letter or last == '' or last == nil or period > last + 0 then
    -- Not covered yet: the day, and the days the clock jumped over (a daily rule rests on them).
    day = periods + 0
    st = parseStreak(stored[3])
    st.pz = stored[4]
    if letter == 'd' then st.jf, st.jl = jumpFirst, jumpLast end
    if st.f ~= letter then st.len, st.last, st.start, st.p = 0, nil, nil, nil end
    -- A day off neither extends nor breaks the streak (daily rules: plan.off).
    if st and planned.off and planned.off[(day + 4) % 7] then st = nil end
  end
end

-- The total. On the usual points plan, an integer total well inside a double's exact range is
-- added here and written with the award in one HSET (HINCRBY would give the same digits);
-- anything else goes through addNumber.
local total, totalText
local pendingTotal = false -- added here, not written yet
-- On the usual points plan: the stored total and the value as numbers, each converted once
-- (arithmetic converts text more cheaply than tonumber, a C call; either runs strtod).
local oldTotal, valueNumber
if fast then oldTotal, valueNumber = (stored[5] or 0) + 0, value + 0 end
if fast and isInteger and oldTotal % 1 == 0 then
  local sum = oldTotal + valueNumber
  if sum > -9007199254740992 and sum < 9007199254740992 then total, totalText, pendingTotal = sum, digitsOf[sum] or digits(sum), true end
end
if not pendingTotal then
  -- The first write of the event: out of range, nothing has changed.
  -- The stored total, where the read above took it (the fifth field of the points paths' reads).
  total = addTotal(userKey, totalField, value, isInteger, (fast or pc) and stored[5] or nil)
  if total == nil then return {-11} end
end

local fastAward -- the fast path's award, as the log carries it
if fast then
  local old, new, high = oldTotal, total + 0, stored[6] and stored[6] + 0 or nil
  local from = old
  if high and high > from then from = high end
  if new > from then
    local T = fast.T
    local times = (new - new % T) / T - (from - from % T) / T
    if times > 0 then
      local points = (fast.P + 0) * times
      local before = (stored[7] or 0) + 0
      -- pointsAfter's usual case in place (above 0, below any cap), sparing the call.
      local after, refused = before + points, nil
      if after < 0 or (fast.cap and points > 0 and after > fast.cap) then after, refused = pointsAfter(before, points, fast.cap, fast.block) end
      if after == nil then
        -- Refused: nothing written yet, or the total to put back.
        if not pendingTotal then
          if stored[5] then redis.call('HSET', userKey, totalField, stored[5]) else redis.call('HDEL', userKey, totalField) end
        end
        if refused == 'range' then return {-17, fast.system} end
        return {-8, fast.system}
      end
      if after ~= before then
        local n = (stored[8] or 0) + 1
        -- Strings joined, not formatted: string.format goes through vfprintf. The award is usually
        -- the trigger's points as sent. Numbers all three: their digits from the memo directly
        -- (numberText would first ask type(), a C call; digits() is called only when the memo
        -- misses).
        local afterText, nText = digitsOf[after] or digits(after), digitsOf[n] or digits(n)
        local awardedText = after - before == points and times == 1 and fast.P or digits(after - before)
        scope = string.sub(userKey, #slot + 6)
        -- pointsRecord in place.
        local pointsKey = slot .. 'up:' .. scope .. ':' .. fast.system
        redis.call('HSET', pointsKey, 'a:' .. nText, nowStamp .. '|' .. awardedText .. '|' .. afterText .. '|' .. fast.trigger,
          dayField, afterText)
        if n > 100 then redis.call('HDEL', pointsKey, string.format('a:%d', n - 100)) end
        -- The tenant's totals in this partition (points.lua), by the uid of the user's keys.
        redis.call('HSET', slot .. 'ptt:' .. tenant .. ':' .. fast.system, string.sub(scope, #tenant + 2), afterText)
        if pendingTotal then
          redis.call('HSET', userKey, totalField, totalText, fast.pt, afterText, fast.pn, nText)
          pendingTotal = false
        else
          redis.call('HSET', userKey, fast.pt, afterText, fast.pn, nText)
        end
        -- pointsLogEntry's form, joined at once.
        fastAward = '[["' .. fast.system .. '","' .. fast.trigger .. '",' .. awardedText .. ',' .. afterText .. ',' .. nText .. ',""]]'
      end
    end
  end
  if new < old and (high == nil or old > high) then redis.call('HSET', userKey, planned.high, stored[5] or '0') end
  if pendingTotal then redis.call('HSET', userKey, totalField, totalText) end
end

-- Points before anything else is written: an event that a trigger refuses changes nothing.
if pc then
  -- The request's own attributes, not written yet: filters see them.
  local pending
  if #ARGV >= 7 then
    pending = {}
    for i = 7, #ARGV, 2 do pending[ARGV[i]] = ARGV[i + 1] end
    pc.pending = pending
  end
  local function userMatches(ua)
    return not ua or attributesMatch(userKey, ua, pending)
  end
  -- A new user's creation awards first: what they grant, this event may spend.
  if stored[2] == false and triggers.creation then
    local d = planDetails(planned).p
    for _, t in ipairs(d.c) do
      if userMatches(t.ua) then pointsAward(pc, t.s, d.s[t.s], t.i, t.p, false) end
    end
  end
  if metricTriggers then
    local old, new, high = tonumber(stored[5] or '0'), tonumber(total), tonumber(stored[6] or '')
    local undo = {}
    for k, t in ipairs(metricTriggers) do
      local from, to
      if not t.filter then
        from, to = old, new
        if high and high > from then from = high end
      elseif string.byte(matches, t.filter) == BYTE_ONE then
        -- Only the events matching its filters count: the trigger's own running sum.
        local sumField, highField = t.sumField, t.highField
        local sums = redis.call('HMGET', userMetricKey, sumField, highField)
        undo[#undo + 1] = {sumField, sums[1]}
        from, to = tonumber(sums[1] or '0'), tonumber(addNumber(userMetricKey, sumField, value, isInteger))
        if to < from and (sums[2] == false or from > sums[2] + 0) then
          redis.call('HSET', userMetricKey, highField, sums[1] or '0')
          undo[#undo + 1] = {highField, sums[2]}
        elseif sums[2] and sums[2] + 0 > from then
          from = sums[2] + 0
        end
      end
      if from and to > from then
        local T = t.every
        local times = (to - to % T) / T - (from - from % T) / T
        local awarded, refused = true, nil
        if times > 0 and (not t.userFiltered or userMatches(planDetails(planned).p.m[k].ua)) then
          awarded, refused = pointsAward(pc, t.system, t.cap, t.trigger, t.points * times, t.block)
        end
        if not awarded then
          -- Refused: put back what this script wrote, and say which system.
          if stored[5] then redis.call('HSET', userKey, totalField, stored[5]) else redis.call('HDEL', userKey, totalField) end
          for _, u in ipairs(undo) do
            if u[2] then redis.call('HSET', userMetricKey, u[1], u[2]) else redis.call('HDEL', userMetricKey, u[1]) end
          end
          if refused == 'range' then return {-17, t.system} end
          return {-8, t.system}
        end
      end
    end
    -- A total that falls remembers its highest point, so rising to it again awards nothing.
    if new < old and (high == nil or old > high) then redis.call('HSET', userKey, planned.high, stored[5] or '0') end
  end
end

-- eventRest in place (a call with a dozen arguments costs more than the lines): the user, the
-- day, the key.
local created, moved = 0, nil
if stored[2] == false or #ARGV >= 7 then
  nowIso = string.sub(creation, 1, 24)
  created, moved = writeUser(userKey, stored[2] == false and slot .. 'users:' .. tenant or '', stored[2] ~= false, creation, ARGV, 7, nowIso)
end
-- addNumber in place.
local daySum = isInteger and redis.pcall('HINCRBY', userMetricKey, dayField, value)
if type(daySum) ~= 'number' then redis.call('HINCRBYFLOAT', userMetricKey, dayField, value) end
if limitField then redis.call('HSET', userMetricKey, 'lim', limitField) end
redis.call('HSET', userKey, 'ck', clockField)
if idempotency ~= '' then
  local eventId = string.sub(idempotency, 1, 36)
  redis.call('HSET', userMetricKey, string.sub(idempotency, 37), expiresAt and (eventId .. ':' .. expiresAt) or eventId)
end
if pc then pc.pending = nil end
-- A new user's time triggers start counting now.
if timeTriggers and created == 1 then
  local now = nowStamp + 0
  local due, earliest = {}, nil
  for _, t in ipairs(timeTriggers) do
    local next = now + t.interval
    due[#due + 1] = t.field
    due[#due + 1] = string.format('%d', next)
    if not earliest or next < earliest then earliest = next end
  end
  redis.call('HSET', userKey, unpack(due))
  redis.call('ZADD', slot .. 'ptdue', string.format('%d', earliest), tenant .. '|' .. string.sub(creation, 25))
end
-- A new user's anniversaries count from this day.
if planned.anniv and created == 1 then
  anniversaryFirst(userKey, slot .. 'anndue', tenant .. '|' .. string.sub(creation, 25), string.sub(dayField, 3), nowStamp + 0, planned.anniv)
end

local completed = {} -- the ids of the achievements this event completes
-- Leaderboards: the run sums this event adds to, then the user's breakdown attributes, as a JSON
-- array of strings (an attribute's value may hold any character).
local values = ''
if boards ~= '' then
  local runs, attributes = string.match(boards, '^([^#]*)#(.*)$')
  local list = {}
  for field in string.gmatch(runs, '[^,]+') do list[#list + 1] = numberText(addNumber(userMetricKey, field, value, isInteger)) end
  if attributes ~= '' then
    local fields = {}
    for field in string.gmatch(attributes, '[^,]+') do fields[#fields + 1] = field end
    for _, v in ipairs(redis.call('HMGET', userKey, unpack(fields))) do list[#list + 1] = v or '' end
  end
  if #list > 0 then values = cjson.encode(list) end
end
-- A metric achievement completes on the event that takes its total across the threshold.
if achHot ~= '' then
  local v = valueNumber or value + 0
  local newTotal = total + 0
  -- A numeric loop: ipairs costs a C call to start and one per step.
  local thresholds = planned.thresholds
  for k = 1, #thresholds do
    local threshold = thresholds[k]
    local goal, filter = threshold.goal, threshold.filter
    -- The unfiltered thresholds come last, in ascending order: none after this one is reached.
    if not filter and goal > newTotal then break end
    local now = newTotal
    if filter then
      now = nil
      if string.byte(matches, filter) == BYTE_ONE then
        now = tonumber(addNumber(userMetricKey, planDetails(planned).m[k].pf, value, isInteger))
      end
    end
    -- The event that takes the total across the goal completes it; so does a later one for an
    -- achievement with a user filter, which the user may have come to match since (complete()
    -- checks the filter, and completes at most once).
    if now and now >= goal and (now - v < goal or (planned.uf or userFiltered(planned))[k]) then
      nowIso = nowIso or string.sub(creation, 1, 24)
      complete(userKey, slot .. 'achc:' .. tenant, planDetails(planned).m[k], nowIso, completed)
    end
  end
end
local streakPacked, streakPauses, streakExtended = '', '', '0'
local logStreak = false -- the log entry carries the streak's state after an extension
if letter then
  local extended = false
  local packed = stored[3] or ''
  if st then
    local before
    nowIso = nowIso or string.sub(creation, 1, 24)
    extended, before, packed = streakUpdate(userKey, slot, planned, st, period, day, value,
      metAlone, stored[2] and nowIso or nil, assumedTz) -- a new user's 'created' is the extension's time
    if extended and planned.sa then
      for _, a in ipairs(planDetails(planned).sa) do
        if before < a.l and st.len >= a.l then complete(userKey, slot .. 'achc:' .. tenant, a, nowIso, completed) end
      end
    end
  end
  streakPacked, streakPauses, streakExtended = packed, stored[4] or '', extended and '1' or '0'
  -- The log carries an extension to the workers, which keep the tenant's streak rankings.
  if extended then
    logStreak = true
    if pc and triggers.streak then
      local d = planDetails(planned).p
      for _, t in ipairs(d.k) do
        if st.len % t.l == 0 and attributesMatch(userKey, t.ua, nil) then pointsAward(pc, t.s, d.s[t.s], t.i, t.p, false) end
      end
    end
  end
end
if #completed > 0 then
  cascade(userKey, slot .. 'achc:' .. tenant, planDetails(planned).c, nowIso, completed)
  if pc and triggers.achievement then
    local d = planDetails(planned).p
    for i = 1, #completed do
      for _, t in ipairs(d.a[completed[i]] or {}) do
        if attributesMatch(userKey, t.ua, nil) then pointsAward(pc, t.s, d.s[t.s], t.i, t.p, false) end
      end
    end
  end
end
local awards = ''
if fastAward then
  awards = fastAward
elseif pc and #pc.awards > 0 then
  pointsCommit(pc)
  awards = pointsLog(pc)
end
-- The streak's state and the awards go in fields of their own, not joined into the entry: a join
-- makes a new string, and Lua hashes every byte of it (the drainer puts them back in the body).
-- The log key is joined anew: a memo of one string per partition costs Lua's collector more than
-- the joins it saves (Redis runs a step of it every 50 calls, and each cycle walks every live
-- object).
local seq
if #completed > 0 or excluded then
  -- The achievements it completed (rare: a list of fields, built only here), as a JSON list of
  -- ids; the mark of an excluded user's event.
  local fields = {'event', logEntry}
  if logStreak then
    fields[3], fields[4] = 'sx', streakPacked
    if streakPauses ~= '' then fields[5], fields[6] = 'sp', streakPauses end
  end
  if awards ~= '' then fields[#fields + 1] = 'pa'; fields[#fields + 1] = awards end
  if #completed > 0 then
    fields[#fields + 1] = 'ac'
    fields[#fields + 1] = '["' .. table.concat(completed, '","') .. '"]'
  end
  if excluded then fields[#fields + 1] = 'ex'; fields[#fields + 1] = '1' end
  seq = logAdd(logKey, unpack(fields))
elseif awards ~= '' then
  if logStreak and streakPauses ~= '' then
    seq = logAdd(logKey, 'event', logEntry, 'sx', streakPacked, 'sp', streakPauses, 'pa', awards)
  elseif logStreak then
    seq = logAdd(logKey, 'event', logEntry, 'sx', streakPacked, 'pa', awards)
  else
    seq = logAdd(logKey, 'event', logEntry, 'pa', awards)
  end
elseif logStreak then
  -- The user's pauses too, when there are any (rare): the rankings' expiry counts them.
  if streakPauses == '' then
    seq = logAdd(logKey, 'event', logEntry, 'sx', streakPacked)
  else
    seq = logAdd(logKey, 'event', logEntry, 'sx', streakPacked, 'sp', streakPauses)
  end
else
  seq = logAdd(logKey, 'event', logEntry)
end
-- One string, not a table: Redis converts a table reply element by element, a string at once.
if moved then values = values .. '\n' .. moved end
return (totalText or numberText(total)) .. (countedText and '|' .. countedText or '') .. '\n' .. (created == 1 and '1' or excluded and 'x' or '0') .. '\n' .. streakPacked .. '\n' ..
  streakPauses .. '\n' .. streakExtended .. '\n' .. awards .. '\n' .. (#completed > 0 and table.concat(completed, ',') or '') ..
  '\n' .. seq .. '\n' .. values
