--[[
  Phase 1 of a metric event for a metric without features (no achievement, no streak), of a user
  without streak preferences, on the user's partition: idempotency check, user upsert, metric
  total, the day's summary bucket and one entry on the partition's event log. Pure: time and
  periods come in as arguments. A separate script from recordEventPlan, so events of plain metrics
  pay nothing for features.

  KEYS[1] user hash              <slot>user:<tenant>:<uid>
  KEYS[2] user-metric hash       <slot>um:<metricId>:<tenant>:<uid>   d:<day> -> change, i:<key> -> event id
  KEYS[3] partition user set     <slot>users:<tenant>
  KEYS[4] partition event log    <slot>log

  ARGV[1] the event's small arguments in one string (each KEYS or ARGV element costs more than a
          capture): '<flags>|<total field>|<value>|<day field>|<zone>|<now ms>|<clock>|<accepted>'
            flags       one character each: '1' when the request sets the time zone (then it is
                        <zone>); '1' when it sets subscribeToEmails to true without an email; '1'
                        when the value is an integer; a fourth one the script ignores. Then, when
                        the idempotency window is finite: ':<now ms>:<expiry ms of a key used now>'
            total field the metric's total in the user hash: 'm:<metricId>'
            value       a decimal string
            day field   'd:<the event's day on the user's clock>'
            zone        the time zone assumed for the day; '' is UTC
            now ms      the event's time, ms since the epoch
            clock       what the api assumed of the user's clock (lua/includes/clock.lua)
            accepted    a batch item's chunk id in the partition's batch queue, '' for an event
                        (lua/includes/fence.lua)
  ARGV[2] idempotency: '' when no key was sent, else '<event id, 36 characters>i:<key>'
  ARGV[3] creation: '<now, ISO-8601, 24 characters><user id>'
  ARGV[4] the event log entry (JSON, built by the api: one field keeps XADD cheap)
  ARGV[5...] user hash field/value pairs of the identification, maybe ending with the breakdown
          marker (lua/includes/writeUser.lua)

  Returns
    '<total>\n<created>\n\n\n0\n\n\n<seq>\n'  processed, in recordEventPlan's form (created '1' for a
                                  new user, 'x' for a user excluded from the rankings (the log
                                  entry then carries 'ex': '1'), no streak, awards, completions or
                                  boards; seq the log entry's id); when the identification moved the user's
                                  breakdown attributes, a tenth field after the empty ninth:
                                  what moved (lua/includes/writeUser.lua)
    {2, eventId, total, ''}       idempotent replay: the key was used before, nothing changed
    {-1, storedTz}                the stored time zone is not <zone>: nothing changed, recompute
    {-2}                          subscribeToEmails true without an email: nothing changed
    {-7, clock}                   the user's clock ('ck', '' when none) is not what <clock>
                                  assumed: nothing changed, work the day out again from it
    {-19}                         a batch item accepted before the user's erasure (its fence):
                                  nothing changed, the item is dropped
    {-11}                         the total would leave a double's range: nothing changed
    {-12, token, prefs}           the user has streak preferences ('s:ov' and 's:o'): nothing
                                  changed, send the event to recordEventPlan with the plan of
                                  their rule
]]
local userKey = KEYS[1]
local userMetricKey = KEYS[2]
local usersKey = KEYS[3]
local logKey = KEYS[4]

local flags, totalField, value, dayField, assumedTz, nowStamp, clockArg, accepted =
  string.match(ARGV[1], '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|(.*)$')
local idempotency = ARGV[2]
local creation = ARGV[3]
local logEntry = ARGV[4]

--- @include "addNumber"
--- @include "canSubscribe"
--- @include "writeUser"
--- @include "eventCore"
--- @include "clock"
--- @include "fence"
--- @include "logAdd"

-- A call of a Lua function costs more than the test that avoids it: the helpers are called only
-- when they have something to do (flags not in the memo, a window, a key, a zone to compare or an
-- email).
local flag = flagTables[flags] or eventFlags(flags)
local isInteger = flag.integer
local nowMs, expiresAt
if #flags > 4 then nowMs, expiresAt = eventWindow(flags) end

local replay = idempotency ~= '' and eventReplay(userKey, userMetricKey, totalField, idempotency, nowMs)
if replay then return replay end

local stored = redis.call('HMGET', userKey, 'tz', 'id', 's:ov', 'x', 'ck')
-- A user with streak preferences takes recordEventPlan, with the plan of their rule.
if stored[3] then return {-12, stored[3], redis.call('HGET', userKey, 's:o') or ''} end
if flag.needsEmail or (not flag.setsZone and (stored[1] or '') ~= assumedTz) then
  local refusal = eventRefusal(userKey, stored, flag, assumedTz)
  if refusal then return refusal end
end
-- The user's clock as the api assumed it (lua/includes/clock.lua); no streak here to rest on
-- the days it jumped over.
local clockOk, _, _, clockField = clockTake(stored[5], clockArg, nowStamp)
if not clockOk then return {-7, stored[5] or ''} end
if accepted ~= '' and fenced(logKey, userKey, accepted) then return {-19} end

local total, created, moved = eventApply(userKey, userMetricKey, usersKey, stored[2] ~= false, totalField, value,
  isInteger, dayField, idempotency, expiresAt, creation, ARGV, 5)
if total == nil then return {-11} end
redis.call('HSET', userKey, 'ck', clockField)
-- An excluded user's event (src/engine/fairplay/exclude.ts) counts, and says so to phase 2 and the log.
local excluded = stored[4]
local seq
if excluded then seq = logAdd(logKey, 'event', logEntry, 'ex', '1') else seq = logAdd(logKey, 'event', logEntry) end
-- The empty ninth field (no boards), then what moved when something did.
return numberText(total) .. (created == 1 and '\n1\n\n\n0\n\n\n' or excluded and '\nx\n\n\n0\n\n\n' or '\n0\n\n\n0\n\n\n') .. seq ..
  (moved and '\n\n' .. moved or '\n')
