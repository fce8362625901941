--[[
  Completes an `api` achievement for a user (upserting the user first), at most once, then the
  composites that this completes, and awards the points of their achievement triggers (and of
  user-creation triggers for a new user). A second call completes nothing and answers the first
  completion's time.

  KEYS[1] user hash              <slot>user:<tenant>:<uid>
  KEYS[2] partition user set     <slot>users:<tenant>
  KEYS[3] partition event log    <slot>log
  KEYS[4] completion counters    <slot>achc:<tenant>
  KEYS[5] points key base        <slot>up:<tenant>:<uid>:     (lua/includes/points.lua)

  ARGV[1] creation: '<now, ISO-8601, 24 characters><user id>'
  ARGV[2] '1' when the request sets subscribeToEmails to true without an email
  ARGV[3] the event log entry (JSON, built by the api); when this completes something, the
          script adds "ac": the ids completed (src/model/log.ts)
  ARGV[4] plan (msgpack): a = the achievement's entry, c = the composites, p = the points
          triggers (src/domain/points/rules.ts PointsDetails, without metric triggers) or absent
  ARGV[5] '<now ms>|<day field>': the awards' date, and the day they count on
  ARGV[6] the boosts that may apply (JSON, src/domain/points/rules.ts boostsFor) or ''
  ARGV[7...] user hash field/value pairs of the identification, maybe ending with the breakdown
          marker (lua/includes/writeUser.lua)

  Returns
    {1, created, achievedAt, awards, seq, moved, id...}  the user was identified; achievedAt is
                                     when the achievement was completed (now, or earlier); awards
                                     as accruePoints answers them ('' without); seq the log entry's id
                                     (phase 2 orders the user's placements by it); moved the
                                     breakdown attributes the identification changed, with their
                                     old values (lua/includes/writeUser.lua), or ''; the ids
                                     completed now
    {-2}                             subscribeToEmails true without an email: nothing changed
    {-6}                             the user's attributes do not match the achievement's
                                     filters: nothing changed
]]
local userKey = KEYS[1]
local usersKey = KEYS[2]
local logKey = KEYS[3]
local countsKey = KEYS[4]
local pointsBase = KEYS[5]

local creation = ARGV[1]
local needsEmail = ARGV[2]
local logEntry = ARGV[3]
local plan = cmsgpack.unpack(ARGV[4])
local nowStamp, dayField = string.match(ARGV[5], '^([^|]*)|(.*)$')

--- @include "canSubscribe"
--- @include "writeUser"
--- @include "completeAchievements"
--- @include "points"
--- @include "logAdd"

if not canSubscribe(userKey, needsEmail) then return {-2} end

local achievement = plan.a
local stamp = string.sub(creation, 1, 24)
local before = redis.call('HGET', userKey, achievement.cf)
if not before and achievement.ua then
  local pending = {}
  for i = 7, #ARGV, 2 do pending[ARGV[i]] = ARGV[i + 1] end
  if not attributesMatch(userKey, achievement.ua, pending) then return {-6} end
end

local created, moved = writeUser(userKey, usersKey, redis.call('EXISTS', userKey) == 1, creation, ARGV, 7)
local reply = {1, created, before or stamp, ''}
if not before then
  redis.call('HSET', userKey, achievement.cf, stamp)
  redis.call('HINCRBY', countsKey, achievement.id, '1')
  reply[#reply + 1] = achievement.id
  cascade(userKey, countsKey, plan.c, stamp, reply)
end
local points = plan.p
if points then
  local pc = pointsContext(userKey, pointsBase, nowStamp, dayField, ARGV[6])
  local award = function(t)
    if attributesMatch(userKey, t.ua, nil) then pointsAward(pc, t.s, points.s[t.s], t.i, t.p, false) end
  end
  if created == 1 and points.c then
    for _, t in ipairs(points.c) do award(t) end
  end
  if points.a then
    for i = 5, #reply do
      for _, t in ipairs(points.a[reply[i]] or {}) do award(t) end
    end
  end
  if #pc.awards > 0 then
    pointsCommit(pc)
    reply[4] = pc.awards
    logEntry = string.sub(logEntry, 1, -2) .. ',"pa":' .. pointsLog(pc) .. '}'
  end
end
if #reply >= 5 then
  -- What this completed (the achievement and the composites it completes): the notifications read it.
  local completed = {}
  for i = 5, #reply do completed[#completed + 1] = reply[i] end
  logEntry = string.sub(logEntry, 1, -2) .. ',"ac":' .. cjson.encode(completed) .. '}'
end
table.insert(reply, 5, logAdd(logKey, 'achievement', logEntry))
table.insert(reply, 6, moved or '')
return reply
