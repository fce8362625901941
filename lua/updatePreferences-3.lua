--[[
  Sets preferences of an existing user: the notification types passed, and the streak preferences
  passed merged into those stored (a field not passed is kept).

  KEYS[1] user hash              <slot>user:<tenant>:<uid>
  KEYS[2] streak history         <slot>sh:<tenant>:<uid>      the run's periods, when a disable ends it
  KEYS[3] partition event log    <slot>log                    a 'preferences' entry (what a restore replays)

  ARGV[1] the log entry (JSON, built by the api)
  ARGV[2] the streak preferences passed, JSON {enabled?, evaluation? ('all'|'any'), metrics? (a
          list of [metric id, threshold] pairs)}, or '' when none
  ARGV[3...] field/value pairs: 'n:<type>' -> JSON array of channels

  With streak preferences, the user hash's 's:o' holds them merged (JSON, as above) and 's:ov' a
  token of them (16 hex digits of their SHA-1), which every event script reads: an event whose
  plan was compiled from other preferences goes back to the api (lua/recordEventPlan-4.lua). The
  period's sums towards the streak start again (the rule they counted for may have changed), and
  a streak that the preferences disable ends now: length 0, its run's periods written to the
  history (lua/includes/streak.lua), until an extension after they enable it again starts anew.

  Returns
    {1, field, value, ...}  the user after the change (HGETALL)
    {-4}                    the user does not exist: nothing changed
]]
local userKey = KEYS[1]
local historyKey = KEYS[2]
local logKey = KEYS[3]
local entry = ARGV[1]
local streak = ARGV[2]

--- @include "streak"
--- @include "logAdd"

if redis.call('EXISTS', userKey) == 0 then return {-4} end
if #ARGV > 2 then redis.call('HSET', userKey, unpack(ARGV, 3)) end
if streak ~= '' then
  local old = redis.call('HGET', userKey, 's:o')
  local prefs = old and cjson.decode(old) or {}
  for k, v in pairs(cjson.decode(streak)) do prefs[k] = v end
  local text = cjson.encode(prefs)
  redis.call('HSET', userKey, 's:o', text, 's:ov', string.sub(redis.sha1hex(text), 1, 16))
  local packed = redis.call('HGET', userKey, 's')
  if packed then
    local st = parseStreak(packed)
    st.accs = ''
    if prefs.enabled == false and (st.len > 0 or st.run) then
      local run = runHistory(st)
      if #run > 0 then redis.call('HSET', historyKey, unpack(run)) end
      st.len, st.run = 0, nil
    end
    redis.call('HSET', userKey, 's', packStreak(st))
  end
end
if #ARGV > 2 or streak ~= '' then logAdd(logKey, 'preferences', entry) end

local reply = redis.call('HGETALL', userKey)
table.insert(reply, 1, 1)
return reply
