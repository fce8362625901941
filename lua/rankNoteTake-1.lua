--[[
  Takes the users noted for `leaderboard.rank_changed` below an uncapped run's first 1,000
  (src/engine/webhooks/rank-notes.ts) once their moves are recorded: each only while its note is
  the one read. A user the log drainer noted again meanwhile, for a later entry, stays, to be read
  by the next pass.

  KEYS[1] <prefix>:{lbf:<tenant>:<board>}:rn:<run>   zset user -> their latest entry's time (ms)

  ARGV    user, score as read (ZRANGEBYSCORE ... WITHSCORES); repeated

  Returns the number of users taken.
]]
local noted = KEYS[1]

local taken = 0
for i = 1, #ARGV, 2 do
  if redis.call('ZSCORE', noted, ARGV[i]) == ARGV[i + 1] then
    redis.call('ZREM', noted, ARGV[i])
    taken = taken + 1
  end
end
return taken
