--[[
  Explicit identification of a user: create, upsert or update. A user created here gets the
  points of the user-creation triggers.

  KEYS[1] user hash              <slot>user:<tenant>:<uid>
  KEYS[2] partition user set     <slot>users:<tenant>
  KEYS[3] partition event log    <slot>log
  KEYS[4] points key base        <slot>up:<tenant>:<uid>:     (lua/includes/points.lua)

  ARGV[1] mode: 'create' (fails when the user exists), 'upsert', 'update' (fails when unknown)
  ARGV[2] creation: '<now, ISO-8601, 24 characters><user id>'
  ARGV[3] '1' when the request sets subscribeToEmails to true without an email
  ARGV[4] the event log entry (JSON, built by the api)
  ARGV[5] '' or '<now ms>|<day field>|<user-creation triggers, caps and boosts, JSON {c, s, b}>'
  ARGV[6...] user hash field/value pairs to set, maybe ending with the breakdown marker
          (lua/includes/writeUser.lua)

  Returns
    {1, created, awards, seq, moved, field, value, ...}  the user after the change (HGETALL),
                                     created 1 when new; awards as accruePoints answers them (''
                                     without); seq the log entry's id (phase 2 orders placements
                                     by it); moved the breakdown attributes this changed, with
                                     their old values (lua/includes/writeUser.lua), or ''
    {-2}                             subscribeToEmails true without an email: nothing changed
    {-3}                             mode 'create' and the user exists: nothing changed
    {-4}                             mode 'update' and the user does not exist: nothing changed
]]
local userKey = KEYS[1]
local usersKey = KEYS[2]
local logKey = KEYS[3]
local pointsBase = KEYS[4]

local mode = ARGV[1]
local creation = ARGV[2]
local needsEmail = ARGV[3]
local logEntry = ARGV[4]

--- @include "canSubscribe"
--- @include "writeUser"
--- @include "completeAchievements"
--- @include "points"
--- @include "logAdd"

local exists = redis.call('EXISTS', userKey) == 1
if mode == 'create' and exists then return {-3} end
if mode == 'update' and not exists then return {-4} end
if not canSubscribe(userKey, needsEmail) then return {-2} end

local created, moved = writeUser(userKey, usersKey, exists, creation, ARGV, 6)
local awards = ''
if created == 1 and ARGV[5] ~= '' then
  local nowStamp, dayField, json = string.match(ARGV[5], '^([^|]*)|([^|]*)|(.*)$')
  local points = cjson.decode(json)
  local pc = pointsContext(userKey, pointsBase, nowStamp, dayField, '')
  pc.boosts = points.b
  for _, t in ipairs(points.c) do
    if attributesMatch(userKey, t.ua, nil) then pointsAward(pc, t.s, points.s[t.s], t.i, t.p, false) end
  end
  if #pc.awards > 0 then
    pointsCommit(pc)
    logEntry = string.sub(logEntry, 1, -2) .. ',"pa":' .. pointsLog(pc) .. '}'
    awards = pc.awards
  end
end
local seq = logAdd(logKey, 'user', logEntry)

local reply = redis.call('HGETALL', userKey)
table.insert(reply, 1, moved or '')
table.insert(reply, 1, seq)
table.insert(reply, 1, awards)
table.insert(reply, 1, created)
table.insert(reply, 1, 1)
return reply
