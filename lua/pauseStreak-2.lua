--[[
  Adds or removes a streak pause of one user. Paused periods are neither missed nor counted.

  KEYS[1] user hash              <slot>user:<tenant>:<uid>
  KEYS[2] partition event log    <slot>log                    a 'pause' entry when done

  ARGV[1] 'add' or 'remove'
  ARGV[2] add: the pause as JSON [frequency letter, first period, last period, id];
          remove: the pause id
  ARGV[3] the log entry (JSON, built by the api)

  Returns {1} (done), {0} (remove: no such pause), or {-4} for an unknown user.
]]
local userKey = KEYS[1]
local logKey = KEYS[2]
--- @include "logAdd"

local op = ARGV[1]
local arg = ARGV[2]
local entry = ARGV[3]

local stored = redis.call('HMGET', userKey, 'id', 's:pz')
if not stored[1] then return {-4} end
local pauses = stored[2] and cjson.decode(stored[2]) or {}
if op == 'add' then
  pauses[#pauses + 1] = cjson.decode(arg)
else
  local kept = {}
  for _, p in ipairs(pauses) do
    if p[4] ~= arg then kept[#kept + 1] = p end
  end
  if #kept == #pauses then return {0} end
  pauses = kept
end
if #pauses == 0 then
  redis.call('HDEL', userKey, 's:pz')
else
  redis.call('HSET', userKey, 's:pz', cjson.encode(pauses))
end
logAdd(logKey, 'pause', entry)
return {1}
