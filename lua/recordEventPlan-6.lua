--[[
  Phase 1 of a metric event with features (achievements or a streak on the metric), on the user's
  partition: idempotency check, user upsert, metric total, the day's summary bucket, the streak,
  achievements the event completes, and one entry on the partition's event log. Pure: time,
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

  ARGV[1] the event's small arguments in one string (each KEYS or ARGV element costs about 1,700
          instructions, a capture about 500):
          '<flags>|<total field>|<value>|<day field>|<zone>|<matches>|<periods>|<hot>'
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
            matches     '1'/'0' per event-filtered achievement of the plan: whether this event
                        matches
            periods     '<period>:<day>' of the event in <zone>, then ':<period in the zone of the
                        streak>' after a zone change; '' without a streak rule
            hot         the plan's hot part: '<thresholds>#<rule>'. thresholds: the metric
                        achievements' as 'v' or 'v:f' (f: the position in <matches>),
                        comma-separated, the filtered ones first, then the others in ascending
                        order; rule: '' or '<f><mode><all><sa><fz>|<position>|<t>;<t>...|<i>,<x>,<n>,<a>'
                        (one character each: the frequency letter; 1: the metric is not in the
                        rule, 2: it is; 1 for evaluation all; 1 when streak achievements exist; 1
                        when freezes are configured. Then this metric's position in the rule, the
                        thresholds, and the freezes or '')
  ARGV[2] idempotency: '' when no key was sent, else '<event id, 36 characters>i:<key>'
  ARGV[3] creation: '<now, ISO-8601, 24 characters><user id>'
  ARGV[4] the event log entry without its closing brace (JSON, built by the api: one field keeps
          XADD cheap); an event that extends the streak adds "sx": "<the stored state>" to it
  ARGV[5] the plan's details (JSON, decoded only when something completes): m = the metric
          achievements (in the order of <hot>), c = composites, sa = streak achievements
  ARGV[6...] user hash field/value pairs of the identification

  Returns
    {1, total, created, streak, id...}  processed; created is 1 for a new user; streak is
                          {stored state, pauses, extended} ('' without a rule); then the ids of
                          the achievements this event completed
    {2, eventId, total, streak}  idempotent replay: the key was used before, nothing changed
    {-1, storedTz}        the stored time zone is not <zone>: nothing changed, recompute
    {-2}                  subscribeToEmails true without an email: nothing changed
    {-7, streakTz}        the streak's last period was judged in another zone: send the period
                          in that zone too (<periods>); nothing changed
]]
local userKey = KEYS[1]
local userMetricKey = KEYS[2]
local usersKey = KEYS[3]
local logKey = KEYS[4]
local countsKey = KEYS[5]
local historyKey = KEYS[6]

local flags, totalField, value, dayField, assumedTz, matches, periods, hot = string.match(ARGV[1],
  '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|(.*)$')
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

local isInteger = string.byte(flags, 3) == 49
local nowMs, expiresAt = eventWindow(flags)

local achHot, ruleHot = string.match(hot, '^([^#]*)#(.*)$')
-- The rule's frequency letter and mode are read in place; the rest only when an event needs it.
local letter, mode
if ruleHot ~= '' then letter, mode = string.sub(ruleHot, 1, 1), string.byte(ruleHot, 2) - 48 end
local p -- the decoded details, when needed
local function details()
  if not p then p = cjson.decode(plan) end
  return p
end

local replay = eventReplay(userKey, userMetricKey, totalField, idempotency, nowMs)
if replay then
  if letter then replay[4] = {redis.call('HGET', userKey, 's') or '', redis.call('HGET', userKey, 's:pz') or '', 0} end
  return replay
end

local stored
if letter then
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

local total, created = eventApply(userKey, userMetricKey, usersKey, stored[2] ~= false, totalField, value,
  isInteger, dayField, idempotency, expiresAt, creation, ARGV, 6)

local reply = {1, total, created, ''}
local stamp = string.sub(creation, 1, 24)
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
  if extended then logEntry = logEntry .. ',"sx":"' .. packed .. '"' end
end
redis.call('XADD', logKey, '*', 'event', logEntry .. '}')
if #reply > 4 then cascade(userKey, countsKey, details().c, stamp, reply) end
return reply
