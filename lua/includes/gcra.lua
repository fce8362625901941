--[[
  A rate limit as GCRA (the generic cell rate algorithm): one number per API key, the theoretical
  arrival time (TAT) of the key's next request, in ms of the service's clock.

  gcra(bucket, now, interval, tolerance) takes one request from a bucket (a string key):
    now        the service's clock, ms: an argument, never TIME (scripts are pure, and the manual
               clock of the tests drives the limits too)
    interval   ms between two requests at the limit: 1000 / rate
    tolerance  ms a key may run ahead of its rate: (burst - 1) * interval
  Returns 0 when the request may go on (the TAT moved on by one interval), else the ms to wait
  until one would (nothing written, but for a TAT set back as below).

  A TAT further ahead than a spent burst puts it (tolerance + interval) means the clock went back
  (the manual clock set earlier, another api host's clock ahead): it is set back to that furthest
  TAT and kept so, and the key waits one interval, never the whole jump. The bucket expires a
  minute after it has refilled: the expiry runs on Redis's clock, with room for a manual clock
  that stands still.
]]
local function gcra(bucket, now, interval, tolerance)
  local tat = tonumber(redis.call('GET', bucket) or '0') or 0
  local furthest = now + tolerance + interval
  if tat > furthest then
    tat = furthest
    redis.call('SET', bucket, string.format('%.3f', tat), 'PX', math.ceil(tat - now) + 60000)
  end
  if tat < now then tat = now end
  if tat - now > tolerance then return math.ceil(tat - now - tolerance) end
  tat = tat + interval
  redis.call('SET', bucket, string.format('%.3f', tat), 'PX', math.ceil(tat - now) + 60000)
  return 0
end
