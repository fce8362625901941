--[[
  Phase 1 of a metric event, on the user's partition: idempotency check, user upsert, metric
  total, the day's summary bucket and one entry on the partition's event log. Pure: time, periods
  and configuration come in as arguments.

  KEYS[1] user hash              <slot>user:<tenant>:<uid>
  KEYS[2] partition user set     <slot>users:<tenant>
  KEYS[3] partition event log    <slot>log
  KEYS[4] summary hash           <slot>sum:<metricId>:<tenant>:<uid>   day -> change on that day
  KEYS[5] idempotency key        <slot>idem:<metricId>:<tenant>:<uid>:<key>, or <slot>none

  ARGV[1]  now, ISO-8601
  ARGV[2]  user id
  ARGV[3]  metric id
  ARGV[4]  value, a decimal string
  ARGV[5]  event id
  ARGV[6]  local day of the event (YYYY-MM-DD) in the time zone of ARGV[7]
  ARGV[7]  time zone assumed for ARGV[6]; '' is UTC
  ARGV[8]  '1' when the request sets the time zone (then it is ARGV[7]), '0' otherwise
  ARGV[9]  idempotency key; '' when none was sent
  ARGV[10] idempotency window in ms; '0' keeps the key forever
  ARGV[11] '1' when the request sets subscribeToEmails to true without an email
  ARGV[12] the event log entry (JSON, built by the api: one field keeps XADD cheap)
  ARGV[13...] user hash field/value pairs of the identification

  Returns
    {1, total, created}   processed; total is a decimal string; created is 1 for a new user
    {2, eventId, total}   idempotent replay: the key was used before, nothing changed
    {-1, storedTz}        the stored time zone is not ARGV[7]: nothing changed, recompute
    {-2}                  subscribeToEmails true without an email: nothing changed
]]
local userKey = KEYS[1]
local usersKey = KEYS[2]
local logKey = KEYS[3]
local summaryKey = KEYS[4]
local idemKey = KEYS[5]

local nowIso = ARGV[1]
local userId = ARGV[2]
local metricId = ARGV[3]
local value = ARGV[4]
local eventId = ARGV[5]
local day = ARGV[6]
local assumedTz = ARGV[7]
local requestSetsTz = ARGV[8]
local idempotencyKey = ARGV[9]
local windowMs = ARGV[10]
local needsEmail = ARGV[11]
local logEntry = ARGV[12]

--- @include "canSubscribe"
--- @include "writeUser"

local totalField = 'm:' .. metricId

if idempotencyKey ~= '' then
  local firstEventId = redis.call('GET', idemKey)
  if firstEventId then
    return {2, firstEventId, redis.call('HGET', userKey, totalField) or '0'}
  end
end

local stored = redis.call('HMGET', userKey, 'tz', 'id')
if requestSetsTz ~= '1' then
  local storedTz = stored[1] or ''
  if storedTz ~= assumedTz then return {-1, storedTz} end
end

if not canSubscribe(userKey, needsEmail) then return {-2} end

local created = writeUser(userKey, usersKey, userId, nowIso, stored[2] ~= false, ARGV, 13)
local total = redis.call('HINCRBYFLOAT', userKey, totalField, value)
redis.call('HINCRBYFLOAT', summaryKey, day, value)

if idempotencyKey ~= '' then
  if windowMs ~= '0' then
    redis.call('SET', idemKey, eventId, 'PX', windowMs)
  else
    redis.call('SET', idemKey, eventId)
  end
end

redis.call('XADD', logKey, '*', 'event', logEntry)

return {1, total, created}
