--[[
  Takes members out of a partition's notifications due index once their deliveries are made
  (src/engine/notifications/due-index.ts): each only while its score is still the one read, so a
  member the log drainer raised meanwhile (a later extension or active day) stays for its new time.

  KEYS[1] the due index   <prefix>:{p<N>}:ndue   zset member -> earliest due, ms

  ARGV    member, score as read (ZRANGEBYSCORE ... WITHSCORES), repeated

  Returns the number of members taken.
]]
local due = KEYS[1]

local taken = 0
for i = 1, #ARGV, 2 do
  if redis.call('ZSCORE', due, ARGV[i]) == ARGV[i + 1] then
    redis.call('ZREM', due, ARGV[i])
    taken = taken + 1
  end
end
return taken
