--[[
  Takes members out of a due index once they are dealt with: each only while its score is still
  the one read, so a member the log drainer moved meanwhile stays for its new time. The
  notifications due index (src/engine/notifications/due-index.ts: a later extension or active day),
  the webhooks' freeze checks (src/engine/webhooks/freezes.ts) and losses (losses.ts), and the
  users noted for an uncapped run's rank changes (src/engine/webhooks/rank-notes.ts).

  KEYS[1] the due index   <prefix>:{p<N>}:ndue, <prefix>:{wh:<tenant>}:fzdue or :lost,
          <prefix>:{lbf:<tenant>:<board>}:rn:<run>   zset member -> ms

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
