--[[
  Takes one request from an API key's rate-limit bucket (src/engine/keys/rate-limit.ts).

  KEYS[1] the key's bucket   <prefix>:{k:<key id>}:rl

  ARGV[1] now, ms (the service's clock)
  ARGV[2] ms between two requests at the limit
  ARGV[3] ms the key may run ahead of its rate (the burst)

  Returns 0 to go on, else the ms to wait (lua/includes/gcra.lua).
]]
local bucket = KEYS[1]

local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local tolerance = tonumber(ARGV[3])

--- @include "gcra"

return gcra(bucket, now, interval, tolerance)
