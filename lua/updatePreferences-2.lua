--[[
  Sets notification preferences of an existing user; only the types passed change.

  KEYS[1] user hash              <slot>user:<tenant>:<uid>
  KEYS[2] partition event log    <slot>log                    a 'preferences' entry (what a restore replays)

  ARGV[1] the log entry (JSON, built by the api)
  ARGV[2...] field/value pairs: 'n:<type>' -> JSON array of channels

  Returns
    {1, field, value, ...}  the user after the change (HGETALL)
    {-4}                    the user does not exist: nothing changed
]]
local userKey = KEYS[1]
local logKey = KEYS[2]
local entry = ARGV[1]

if redis.call('EXISTS', userKey) == 0 then return {-4} end
if #ARGV > 1 then
  redis.call('HSET', userKey, unpack(ARGV, 2))
  redis.call('XADD', logKey, '*', 'preferences', entry)
end

local reply = redis.call('HGETALL', userKey)
table.insert(reply, 1, 1)
return reply
