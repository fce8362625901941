--[[
  Reads some users of one board run (a ranking of its own hash slot) as they stand at one moment,
  for a snapshot that reads a large run member by member instead of DUMPing its keys whole
  (src/redis/run-members.ts). A placement writes a user's member, sequence and
  history in one script; read here together, a user's state is never half of one.

  Called with its number of keys first: 6, and two more for each user.
  KEYS[1] ranking                <prefix>:{lb:…}:r        zset member '<order>|<user id>'
  KEYS[2] members                <prefix>:{lb:…}:m        hash user -> member
  KEYS[3] sequences              <prefix>:{lb:…}:q        hash user -> log entry id
  KEYS[4] expiries               <prefix>:{lb:…}:x        zset user -> when (streak boards)
  KEYS[5] reported               <prefix>:{lb:…}:w        hash user -> '<rank>|<value>'
  KEYS[6] published              <prefix>:{lb:…}:lv       hash user -> '<rank>|<value>'
  KEYS[7 + 2i], KEYS[8 + 2i]     user i's history (:h:<uid>) and awards (:a:<uid>)

  ARGV[1 + i] user i's id

  Returns, for each user in order, eight values (nil where absent): the member, its score, the
  sequence, the expiry, the reported and published '<rank>|<value>', and the DUMPs of the history
  and the awards.
]]
-- The run's keys that may not exist (a metric board has no expiries, a run nobody watched no
-- reported or published places): looked up once, not once per user.
local has = {}
for k = 3, 6 do has[k] = redis.call('EXISTS', KEYS[k]) == 1 end

local out = {}
local n = 0
for i = 1, #ARGV do
  local userId = ARGV[i]
  local member = redis.call('HGET', KEYS[2], userId)
  local score = false
  if member then score = redis.call('ZSCORE', KEYS[1], member) end
  out[n + 1] = member
  out[n + 2] = score
  out[n + 3] = has[3] and redis.call('HGET', KEYS[3], userId)
  out[n + 4] = has[4] and redis.call('ZSCORE', KEYS[4], userId)
  out[n + 5] = has[5] and redis.call('HGET', KEYS[5], userId)
  out[n + 6] = has[6] and redis.call('HGET', KEYS[6], userId)
  out[n + 7] = redis.call('DUMP', KEYS[5 + 2 * i])
  out[n + 8] = redis.call('DUMP', KEYS[6 + 2 * i])
  n = n + 8
end
return out
