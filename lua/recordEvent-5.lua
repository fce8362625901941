--[[
  Phase 1 of a metric event, on the user's partition: idempotency check, user upsert, metric
  total, the day's summary bucket and one entry on the partition's event log. Pure: time, periods
  and configuration come in as arguments.

  KEYS[1] user hash              <slot>user:<tenant>:<uid>
  KEYS[2] partition user set     <slot>users:<tenant>
  KEYS[3] partition event log    <slot>log
  KEYS[4] summary hash           <slot>sum:<metricId>:<tenant>:<uid>   day -> change on that day
  KEYS[5] idempotency key        <slot>idem:<metricId>:<tenant>:<uid>:<key>, or <slot>none

  ARGV[1]  now, ms since the epoch
  ARGV[2]  now, ISO-8601
  ARGV[3]  tenant
  ARGV[4]  user id
  ARGV[5]  metric id
  ARGV[6]  value, a decimal string
  ARGV[7]  event id
  ARGV[8]  local day of the event (YYYY-MM-DD) in the time zone of ARGV[9]
  ARGV[9]  time zone assumed for ARGV[8]; '' is UTC
  ARGV[10] '1' when the request sets the time zone (then it is ARGV[9]), '0' otherwise
  ARGV[11] idempotency key; '' when none was sent
  ARGV[12] idempotency window in ms; '0' keeps the key forever
  ARGV[13] '1' when the request sets subscribeToEmails to true without an email
  ARGV[14] event attributes as JSON; '' when none
  ARGV[15...] user hash field/value pairs of the identification

  Returns
    {1, total, created}   processed; total is a decimal string; created is 1 for a new user
    {2, eventId, total}   idempotent replay: the key was used before, nothing changed
    {-1, storedTz}        the stored time zone is not ARGV[9]: nothing changed, recompute
    {-2}                  subscribeToEmails true without an email: nothing changed
]]
local userKey = KEYS[1]
local usersKey = KEYS[2]
local logKey = KEYS[3]
local summaryKey = KEYS[4]
local idemKey = KEYS[5]

local nowMs = ARGV[1]
local nowIso = ARGV[2]
local tenant = ARGV[3]
local userId = ARGV[4]
local metricId = ARGV[5]
local value = ARGV[6]
local eventId = ARGV[7]
local day = ARGV[8]
local assumedTz = ARGV[9]
local requestSetsTz = ARGV[10]
local idempotencyKey = ARGV[11]
local windowMs = ARGV[12]
local needsEmail = ARGV[13]
local eventAttributes = ARGV[14]

--- @include "canSubscribe"
--- @include "writeUser"

local totalField = 'm:' .. metricId

if idempotencyKey ~= '' then
  local firstEventId = redis.call('GET', idemKey)
  if firstEventId then
    return {2, firstEventId, redis.call('HGET', userKey, totalField) or '0'}
  end
end

if requestSetsTz ~= '1' then
  local storedTz = redis.call('HGET', userKey, 'tz') or ''
  if storedTz ~= assumedTz then return {-1, storedTz} end
end

if not canSubscribe(userKey, needsEmail) then return {-2} end

local created = writeUser(userKey, usersKey, userId, nowIso, ARGV, 15)
local total = redis.call('HINCRBYFLOAT', userKey, totalField, value)
redis.call('HINCRBYFLOAT', summaryKey, day, value)

if idempotencyKey ~= '' then
  if windowMs ~= '0' then
    redis.call('SET', idemKey, eventId, 'PX', windowMs)
  else
    redis.call('SET', idemKey, eventId)
  end
end

redis.call('XADD', logKey, '*', 'ty', 'event', 'e', eventId, 't', tenant, 'u', userId,
  'm', metricId, 'v', value, 'ts', nowMs, 'd', day, 'k', idempotencyKey, 'a', eventAttributes)

return {1, total, created}
