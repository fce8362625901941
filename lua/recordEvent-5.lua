--[[
  Phase 1 of a metric event, on the user's partition: idempotency check, user upsert, metric
  total, the day's summary bucket, achievements the event completes, and one entry on the
  partition's event log. Pure: time, periods and configuration (the metric's compiled plan) come
  in as arguments.

  Every KEYS or ARGV element costs about 1,100 instructions in Redis (a Lua string in a fresh,
  read-only table) and 0.25 µs in the api, so field names arrive ready-made, flags share one
  argument and what only some calls need is packed and split on demand.

  KEYS[1] user hash              <slot>user:<tenant>:<uid>
  KEYS[2] user-metric hash       <slot>um:<metricId>:<tenant>:<uid>   d:<day> -> change, i:<key> -> event id
  KEYS[3] partition user set     <slot>users:<tenant>
  KEYS[4] partition event log    <slot>log
  KEYS[5] completion counters    <slot>achc:<tenant>

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
  ARGV[9] the metric's achievement plan (msgpack: m = metric achievements by threshold, c =
          composites), '' when the metric completes nothing
  ARGV[10] '1'/'0' per event-filtered achievement of the plan: whether this event matches
  ARGV[11...] user hash field/value pairs of the identification

  Returns
    {1, total, created, id...}  processed; created is 1 for a new user; the ids of the
                                achievements this event completed
    {2, eventId, total}   idempotent replay: the key was used before, nothing changed
    {-1, storedTz}        the stored time zone is not ARGV[4]: nothing changed, recompute
    {-2}                  subscribeToEmails true without an email: nothing changed
]]
local userKey = KEYS[1]
local userMetricKey = KEYS[2]
local usersKey = KEYS[3]
local logKey = KEYS[4]
local countsKey = KEYS[5]

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

--- @include "addNumber"
--- @include "canSubscribe"
--- @include "writeUser"
--- @include "completeAchievements"

local isInteger = string.byte(flags, 3) == 49
local nowMs, expiresAt
if #flags > 3 then nowMs, expiresAt = string.match(flags, '^...:(%d+):(%d+)$') end

local idemField
if idempotency ~= '' then
  idemField = string.sub(idempotency, 37)
  local used = redis.call('HGET', userMetricKey, idemField)
  if used then
    local firstEventId, expiry = string.match(used, '^([^:]+):?(%d*)$')
    if expiry == '' or nowMs == nil or tonumber(expiry) > tonumber(nowMs) then
      return {2, firstEventId, redis.call('HGET', userKey, totalField) or '0'}
    end
  end
end

local stored = redis.call('HMGET', userKey, 'tz', 'id')
if string.byte(flags, 1) ~= 49 then -- the request does not set the zone: the stored one rules
  local storedTz = stored[1] or ''
  if storedTz ~= assumedTz then return {-1, storedTz} end
end

if string.byte(flags, 2) == 49 and not canSubscribe(userKey, '1') then return {-2} end

local created = writeUser(userKey, usersKey, stored[2] ~= false, creation, ARGV, 11)
local total = addNumber(userKey, totalField, value, isInteger)
addNumber(userMetricKey, dayField, value, isInteger)
if idemField then
  local eventId = string.sub(idempotency, 1, 36)
  redis.call('HSET', userMetricKey, idemField, expiresAt and (eventId .. ':' .. expiresAt) or eventId)
end
redis.call('XADD', logKey, '*', 'event', logEntry)

local reply = {1, total, created}
if plan ~= '' then
  -- A metric achievement completes on the event that takes its total across the threshold.
  local p = cmsgpack.unpack(plan)
  local v = tonumber(value)
  local newTotal = tonumber(total)
  local stamp = string.sub(creation, 1, 24)
  for _, a in ipairs(p.m) do
    local now = newTotal
    if a.f then
      now = nil
      if string.byte(matches, a.f) == 49 then now = tonumber(addNumber(userMetricKey, a.pf, value, isInteger)) end
    end
    if now and now >= a.v and now - v < a.v then complete(userKey, countsKey, a, stamp, reply) end
  end
  if #reply > 3 then cascade(userKey, countsKey, p.c, stamp, reply) end
end
return reply
