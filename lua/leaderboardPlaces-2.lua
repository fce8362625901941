--[[
  Some users' places in one ranking (one shard of a board's run, or a run without shards), read at
  one moment in one call (src/redis/sharded-rankings.ts): for each user, the member the members
  hash names, its value and its position. One call for every user of the shard, where reading them
  command by command took three commands a user. Writes nothing.

  KEYS[1] ranking                <prefix>:{lb:<tenant>:<board>:<run>[:g<hash>][:s<n>]}:r   zset
  KEYS[2] members                <prefix>:{...}:m                                          hash user -> member

  ARGV[1], ARGV[2], ...  user ids

  Returns, for each user in order, three values: the member, its value (as ZSCORE gives it) and
  its position from 0 (the members above it in this ranking); three nils (false) for a user not on
  the ranking (no member, or one the ranking no longer holds: a tenant's keys deleted one by one).
]]
local rankingKey = KEYS[1]

-- The members, a thousand users a command (unpack's arguments go on Lua's C stack).
local members = {}
for first = 1, #ARGV, 1000 do
  local read = redis.call('HMGET', KEYS[2], unpack(ARGV, first, math.min(first + 999, #ARGV)))
  for j = 1, #read do members[first + j - 1] = read[j] end
end

local out = {}
local n = 0
for i = 1, #ARGV do
  local member = members[i]
  local rank = member and redis.call('ZREVRANK', rankingKey, member)
  if rank then
    out[n + 1] = member
    out[n + 2] = redis.call('ZSCORE', rankingKey, member)
    out[n + 3] = rank
  else
    out[n + 1], out[n + 2], out[n + 3] = false, false, false
  end
  n = n + 3
end
return out
