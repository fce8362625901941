--[[
  Authenticates a key scoped to one user and, with a rate limit, takes one request from its bucket
  (src/engine/keys/user-keys.ts). The api caches none of it: a key deleted here is refused by every api
  process from its next request on.

  KEYS[1] the key's record   <prefix>:{k:<key id>}      hash: h sha256 of the key, u user id, t tenant
  KEYS[2] the key's bucket   <prefix>:{k:<key id>}:rl

  ARGV[1] sha256 of the key as sent, hex
  ARGV[2] now, ms (the service's clock)
  ARGV[3] ms between two requests at the limit; 0: no limit
  ARGV[4] ms the key may run ahead of its rate (the burst)

  Returns {0} for no such key (none with this id, or another secret), {1, user id, tenant} to go
  on, {2, ms to wait} over the limit (lua/includes/gcra.lua).
]]
local recordKey = KEYS[1]
local bucket = KEYS[2]

local hash = ARGV[1]
local now = tonumber(ARGV[2])
local interval = tonumber(ARGV[3])
local tolerance = tonumber(ARGV[4])

--- @include "gcra"

local record = redis.call('HMGET', recordKey, 'h', 'u', 't')
if record[1] ~= hash then return {0} end
if interval > 0 then
  local wait = gcra(bucket, now, interval, tolerance)
  if wait > 0 then return {2, wait} end
end
return {1, record[2], record[3]}
