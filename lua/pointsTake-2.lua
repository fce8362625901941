--[[
  Takes the `points.changed` members whose deliveries were recorded
  (src/engine/webhooks/points-changed.ts): each only while both its window's end and its latest
  entry are the ones read. A member the log drainer moved to a later window, or noted a later
  entry of, stays, to be recorded again (a later window's delivery, or the same one's body
  replaced while it waits).

  KEYS[1] <prefix>:{p<N>}:pcw     hash member -> latest entry
  KEYS[2] <prefix>:{p<N>}:pcdue   zset member -> the end of its window (ms)

  ARGV    member, score as read (ZRANGEBYSCORE ... WITHSCORES), value as read (HMGET; '' for none);
          repeated

  Returns the number of members taken.
]]
local latest, due = KEYS[1], KEYS[2]

local taken = 0
for i = 1, #ARGV, 3 do
  local member = ARGV[i]
  -- A member without an entry is read as '' (nothing to send: taken as read).
  if redis.call('ZSCORE', due, member) == ARGV[i + 1] and (redis.call('HGET', latest, member) or '') == ARGV[i + 2] then
    redis.call('ZREM', due, member)
    redis.call('HDEL', latest, member)
    taken = taken + 1
  end
end
return taken
