--[[
  A user's place on one ranking (a board's run, group or league cohort without shards) and the
  places from a position counted from theirs, read at one moment in one call
  (src/redis/sharded-rankings.ts): the member the members hash names, its rank and value, and the
  page. Read command by command, a read around a user was three round trips one after the other
  (the member, then its rank and value, then the page), each waiting its turn on an api process
  busy with events. Writes nothing.

  KEYS[1] ranking                <prefix>:{lb:<tenant>:<board>:<run>[:<group>]}:r   zset
  KEYS[2] members                <prefix>:{...}:m                                   hash user -> member

  ARGV[1] user id
  ARGV[2] offset: the page's first position from the user's (negative: above it, the top at most)
  ARGV[3] count: the page's places (0: the user's place only)

  Returns {} when the user is not on the ranking, else {rank (from 1), value (as ZSCORE gives it),
  the page's first rank, member, value, member, value, ...}.
]]
local rankingKey = KEYS[1]
local member = redis.call('HGET', KEYS[2], ARGV[1])
if not member then return {} end
-- A member the ranking no longer holds (a tenant's keys deleted one by one): not on it.
local rank = redis.call('ZREVRANK', rankingKey, member)
if not rank then return {} end
local out = { rank + 1, redis.call('ZSCORE', rankingKey, member) }
local count = tonumber(ARGV[3])
local start = math.max(0, rank + tonumber(ARGV[2]))
out[3] = start + 1
if count > 0 then
  local page = redis.call('ZREVRANGE', rankingKey, start, start + count - 1, 'WITHSCORES')
  for i = 1, #page do out[#out + 1] = page[i] end
end
return out
