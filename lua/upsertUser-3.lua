--[[
  Explicit identification of a user: create, upsert or update.

  KEYS[1] user hash              <slot>user:<tenant>:<uid>
  KEYS[2] partition user set     <slot>users:<tenant>
  KEYS[3] partition event log    <slot>log

  ARGV[1] mode: 'create' (fails when the user exists), 'upsert', 'update' (fails when unknown)
  ARGV[2] now, ms since the epoch
  ARGV[3] now, ISO-8601
  ARGV[4] tenant
  ARGV[5] user id
  ARGV[6] '1' when the request sets subscribeToEmails to true without an email
  ARGV[7] the identification's fields as JSON, for the event log
  ARGV[8...] user hash field/value pairs to set

  Returns
    {1, created, field, value, ...}  the user after the change (HGETALL), created 1 when new
    {-2}                             subscribeToEmails true without an email: nothing changed
    {-3}                             mode 'create' and the user exists: nothing changed
    {-4}                             mode 'update' and the user does not exist: nothing changed
]]
local userKey = KEYS[1]
local usersKey = KEYS[2]
local logKey = KEYS[3]

local mode = ARGV[1]
local nowMs = ARGV[2]
local nowIso = ARGV[3]
local tenant = ARGV[4]
local userId = ARGV[5]
local needsEmail = ARGV[6]
local changes = ARGV[7]

--- @include "canSubscribe"
--- @include "writeUser"

local exists = redis.call('EXISTS', userKey) == 1
if mode == 'create' and exists then return {-3} end
if mode == 'update' and not exists then return {-4} end
if not canSubscribe(userKey, needsEmail) then return {-2} end

local created = writeUser(userKey, usersKey, userId, nowIso, ARGV, 8)
redis.call('XADD', logKey, '*', 'ty', 'user', 't', tenant, 'u', userId, 'ts', nowMs, 'f', changes)

local reply = redis.call('HGETALL', userKey)
table.insert(reply, 1, created)
table.insert(reply, 1, 1)
return reply
