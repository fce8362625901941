--[[
  Phase 1 of a metric event with features (achievements or a streak on the metric), on the user's
  partition: idempotency check, user upsert, metric total, the day's summary bucket, the streak,
  achievements the event completes, and one entry on the partition's event log. Pure: time, periods and configuration (the metric's compiled plan) come
  in as arguments.

  Every KEYS or ARGV element costs about 1,100 instructions in Redis (a Lua string in a fresh,
  read-only table) and 0.25 µs in the api, so field names arrive ready-made, flags share one
  argument and what only some calls need is packed and split on demand.

  KEYS[1] user hash              <slot>user:<tenant>:<uid>
  KEYS[2] user-metric hash       <slot>um:<metricId>:<tenant>:<uid>   d:<day> -> change, i:<key> -> event id
  KEYS[3] partition user set     <slot>users:<tenant>
  KEYS[4] partition event log    <slot>log
  KEYS[5] completion counters    <slot>achc:<tenant>
  KEYS[6] streak history         <slot>sh:<tenant>:<uid>

  ARGV[1] total field of the metric in the user hash: 'm:<metricId>'
  ARGV[2] value, a decimal string
  ARGV[3] day field: 'd:<local day of the event in the zone of ARGV[4]>'
  ARGV[4] time zone assumed for ARGV[3]; '' is UTC
  ARGV[5] flags, one character each: '1' when the request sets the time zone (then it is ARGV[4]);
          '1' when it sets subscribeToEmails to true without an email; '1' when the value is an
          integer. Then, when the idempotency window is finite: ':<now ms>:<expiry ms of a key
          used now>'
  ARGV[6] idempotency: '' when no key was sent, else '<event id, 36 characters>i:<key>'
  ARGV[7] creation: '<now, ISO-8601, 24 characters><user id>'
  ARGV[8] the event log entry (JSON, built by the api: one field keeps XADD cheap)
  ARGV[9] the metric's plan (msgpack: m = metric achievements by threshold, c = composites,
          s = the streak rule), '' when the metric completes nothing and no streak is configured
  ARGV[10] '1'/'0' per event-filtered achievement of the plan: whether this event matches
  ARGV[11] streak periods: '<period>:<day>' of the event in the zone of ARGV[4], then
           ':<period in the zone of s:tz>' after a zone change; '' without a streak rule
  ARGV[12...] user hash field/value pairs of the identification

  Returns
    {1, total, created, streak, id...}  processed; created is 1 for a new user; streak is
                                {length, start, last, freezes, extended, longest, paused}
                                ('' without a rule; paused: periods since `last` a pause covers);
                                then the ids of the achievements this event completed
    {2, eventId, total, streak}  idempotent replay: the key was used before, nothing changed
    {-1, storedTz}        the stored time zone is not ARGV[4]: nothing changed, recompute
    {-2}                  subscribeToEmails true without an email: nothing changed
    {-3, streakTz}        the streak's last period was judged in another zone: send the period
                          in that zone too (ARGV[11]); nothing changed
]]
local userKey = KEYS[1]
local userMetricKey = KEYS[2]
local usersKey = KEYS[3]
local logKey = KEYS[4]
local countsKey = KEYS[5]
local historyKey = KEYS[6]

local totalField = ARGV[1]
local value = ARGV[2]
local dayField = ARGV[3]
local assumedTz = ARGV[4]
local flags = ARGV[5]
local idempotency = ARGV[6]
local creation = ARGV[7]
local logEntry = ARGV[8]
local plan = ARGV[9]
local matches = ARGV[10]
local periods = ARGV[11]

--- @include "addNumber"
--- @include "canSubscribe"
--- @include "writeUser"
--- @include "eventCore"
--- @include "completeAchievements"
--- @include "streak"

local isInteger = string.byte(flags, 3) == 49
local nowMs, expiresAt = eventWindow(flags)

local p = plan ~= '' and cmsgpack.unpack(plan) or nil
local s = p and p.s

local replay = eventReplay(userKey, userMetricKey, totalField, idempotency, nowMs)
if replay then
  if s then
    -- The answer reflects the current streak.
    local periodOfEvent, dayOfEvent = string.match(periods, '^(%-?%d+):(%-?%d+)')
    local packed = redis.call('HMGET', userKey, 's', 's:pz')
    local st = streakState(s, packed[1], packed[2], tonumber(dayOfEvent))
    replay[4] = {st.len, st.start or -1, st.last or -1, st.frz, 0, st.long,
      st.last and pausedBetween(s, st, st.last + 1, tonumber(periodOfEvent) - 1) or 0}
  end
  return replay
end

local stored
if s then
  stored = redis.call('HMGET', userKey, 'tz', 'id', 's', 's:pz')
else
  stored = redis.call('HMGET', userKey, 'tz', 'id')
end
local refusal = eventRefusal(userKey, stored, flags, assumedTz)
if refusal then return refusal end

local period, day, periodOld, st
if s then
  local a, b, c = string.match(periods, '^(%-?%d+):(%-?%d+):?(%-?%d*)$')
  period, day, periodOld = tonumber(a), tonumber(b), tonumber(c)
  st = streakState(s, stored[3], stored[4], day)
  if s[2] == 2 and periodOld == nil and st.last and st.tz ~= assumedTz then
    return {-3, st.tz}
  end
end

local total, created = eventApply(userKey, userMetricKey, usersKey, logKey, stored[2] ~= false, totalField, value,
  isInteger, dayField, idempotency, expiresAt, creation, logEntry, ARGV, 12)

local reply = {1, total, created, ''}
if p then
  local stamp = string.sub(creation, 1, 24)
  -- A metric achievement completes on the event that takes its total across the threshold.
  local v = tonumber(value)
  local newTotal = tonumber(total)
  for _, a in ipairs(p.m) do
    local now = newTotal
    if a.f then
      now = nil
      if string.byte(matches, a.f) == 49 then now = tonumber(addNumber(userMetricKey, a.pf, value, isInteger)) end
    end
    if now and now >= a.v and now - v < a.v then complete(userKey, countsKey, a, stamp, reply) end
  end
  if s then
    local extended = false
    if s[2] == 2 then
      local before
      extended, before = streakUpdate(userKey, historyKey, s, st, period, periodOld, value, stamp, assumedTz)
      if extended and s[7] then
        for _, a in ipairs(s[7]) do
          if before < a.l and st.len >= a.l then complete(userKey, countsKey, a, stamp, reply) end
        end
      end
    end
    reply[4] = {st.len, st.start or -1, st.last or -1, st.frz, extended and 1 or 0, st.long,
      st.last and pausedBetween(s, st, st.last + 1, period - 1) or 0}
  end
  if #reply > 4 then cascade(userKey, countsKey, p.c, stamp, reply) end
end
return reply
