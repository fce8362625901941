--[[
  Sets notification preferences of an existing user; only the types passed change.

  KEYS[1] user hash              <slot>user:<tenant>:<uid>

  ARGV[1...] field/value pairs: 'n:<type>' -> JSON array of channels

  Returns
    {1, field, value, ...}  the user after the change (HGETALL)
    {-4}                    the user does not exist: nothing changed
]]
local userKey = KEYS[1]

if redis.call('EXISTS', userKey) == 0 then return {-4} end
if #ARGV > 0 then redis.call('HSET', userKey, unpack(ARGV)) end

local reply = redis.call('HGETALL', userKey)
table.insert(reply, 1, 1)
return reply
