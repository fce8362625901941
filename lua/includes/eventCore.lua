--[[
  What every metric event script shares (recordEvent for metrics without features,
  recordEventPlan for metrics with achievements or a streak).

  eventWindow(flags)  the idempotency window in the flags: now and the expiry of a key used now
                      (both nil when keys are kept forever)
  eventFlags(flags)   the flags' first four characters as booleans {setsZone, needsEmail,
                      integer (the value is an integer), metAlone (the event meets the streak rule
                      alone)}: one table per four characters, whatever window follows them, read
                      once rather than by a string.byte call per event; shared: read only
  eventReplay(userKey, userMetricKey, totalField, idempotency, nowMs)
                      {2, firstEventId, total, ''} when the idempotency key was used before
                      (within the window), else nil
  eventRefusal(userKey, stored, f, assumedTz)   (f: eventFlags)
                      {-1, storedTz} when the request sets no zone and the stored one is not the
                      one assumed; {-2} when subscribeToEmails needs an email; else nil
  eventApply(userKey, userMetricKey, usersKey, existed, totalField, value, isInteger,
             dayField, idempotency, expiresAt, creation, argv, first)
                      adds to the total, then eventRest; returns the total, whether the user was
                      created and what moved (eventRest; the caller appends to the log); nil when
                      the total would leave a double's range (addTotal), having written nothing
  eventRest(userKey, userMetricKey, usersKey, existed, value, isInteger, dayField, idempotency,
            expiresAt, creation, argv, first)
                      what follows the total: upserts the user, adds to the day, stores the key;
                      returns whether the user was created, and the breakdown attributes moved
                      (writeUser)
]]
--- @include "bytes"
local function eventWindow(flags)
  -- Three flag characters (four in recordEventPlan), then the window when there is one.
  if #flags > 4 then return string.match(flags, ':(%d+):(%d+)$') end
  return nil, nil
end

local flagTables = {}

local function eventFlags(flags)
  local f = flagTables[flags]
  if f then return f end
  -- The four characters alone are the key, so that the memo holds at most 16 tables: with a
  -- window, each event's flags are its own.
  local head = #flags > 4 and string.sub(flags, 1, 4) or flags
  f = flagTables[head]
  if f then return f end
  local a, b, c, d = string.byte(head, 1, 4)
  f = {setsZone = a == BYTE_ONE, needsEmail = b == BYTE_ONE, integer = c == BYTE_ONE, metAlone = d == BYTE_ONE}
  flagTables[head] = f
  return f
end

local function eventReplay(userKey, userMetricKey, totalField, idempotency, nowMs)
  if idempotency == '' then return nil end
  local used = redis.call('HGET', userMetricKey, string.sub(idempotency, 37))
  if not used then return nil end
  local firstEventId, expiry = string.match(used, '^([^:]+):?(%d*)$')
  if expiry ~= '' and nowMs ~= nil and tonumber(expiry) <= tonumber(nowMs) then return nil end
  return {2, firstEventId, redis.call('HGET', userKey, totalField) or '0', ''}
end

local function eventRefusal(userKey, stored, f, assumedTz)
  if not f.setsZone then -- the stored zone rules
    local storedTz = stored[1] or ''
    if storedTz ~= assumedTz then return {-1, storedTz} end
  end
  if f.needsEmail and not canSubscribe(userKey, '1') then return {-2} end
  return nil
end

local function eventRest(userKey, userMetricKey, usersKey, existed, value, isInteger, dayField, idempotency, expiresAt,
    creation, argv, first)
  local created, moved = writeUser(userKey, usersKey, existed, creation, argv, first)
  addNumber(userMetricKey, dayField, value, isInteger)
  if idempotency ~= '' then
    local eventId = string.sub(idempotency, 1, 36)
    redis.call('HSET', userMetricKey, string.sub(idempotency, 37), expiresAt and (eventId .. ':' .. expiresAt) or eventId)
  end
  return created, moved
end

local function eventApply(userKey, userMetricKey, usersKey, existed, totalField, value, isInteger,
    dayField, idempotency, expiresAt, creation, argv, first)
  local total = addTotal(userKey, totalField, value, isInteger, nil)
  if total == nil then return nil end
  return total, eventRest(userKey, userMetricKey, usersKey, existed, value, isInteger, dayField, idempotency, expiresAt,
    creation, argv, first)
end
