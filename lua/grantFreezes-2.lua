--[[
  Grants streak freezes to one user, up to the maximum.

  KEYS[1] user hash              <slot>user:<tenant>:<uid>
  KEYS[2] partition event log    <slot>log                    a 'freezes' entry when some were granted

  ARGV[1] freezes to grant
  ARGV[2] the maximum a user may hold
  ARGV[3] the freezes a user starts with (when the user never had any)
  ARGV[4] today's day index (auto-earning counts from here for a user new to freezes)
  ARGV[5] the log entry (JSON, built by the api)

  Returns {granted, held} (granted < ARGV[1] when the maximum was reached), or {-4} for an
  unknown user.
]]
local userKey = KEYS[1]
local logKey = KEYS[2]

local wanted = tonumber(ARGV[1])
local max = tonumber(ARGV[2])
local initial = tonumber(ARGV[3])
local day = ARGV[4]
local entry = ARGV[5]

--- @include "streak"
--- @include "logAdd"

local stored = redis.call('HMGET', userKey, 'id', 's')
if not stored[1] then return {-4} end
local st = parseStreak(stored[2])
local held = st.frz or initial
local granted = math.max(0, math.min(wanted, max - held))
st.frz = held + granted
if st.earn == nil then st.earn = day end
redis.call('HSET', userKey, 's', packStreak(st))
if granted > 0 then logAdd(logKey, 'freezes', entry) end
return {granted, st.frz}
