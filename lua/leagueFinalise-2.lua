--[[
  Decides a league cohort's outcome when its run is final (src/engine/leaderboards/league-final.ts),
  on the cohort's own slot, once: the first `promote` of the ranking move up a tier, the last
  `demote` down, the others stay, ranked as the board ranks; a cohort below the league's size moves
  in proportion and never moves all its users (src/domain/leaderboards/league.ts zoneSizes, whose
  lines are the same as these). The outcome is recorded in the cohort's
  outcome hash; a cohort decided already is never decided again (its ranking may have lost an
  erased user since): the recorded outcome is answered instead, so a finalisation made again, by a
  second worker or after a kill, moves nobody twice.

  KEYS[1] the cohort's ranking   <prefix>:{lb:<tenant>:<board>:<run>:c<tier>.<n>}:r   zset,
          members '<order>|<user id>' (lua/leaderboardRank-8.lua)
  KEYS[2] the cohort's outcome   <prefix>:{lb:<tenant>:<board>:<run>:c<tier>.<n>}:o   hash:
          u:<user id> -> '<p|d|s>|<rank>|<value>'; n the participants; p, d, s how many moved so;
          l once the decision is in the event log (an `outcome` entry: the finalisation writes it
          after this call, then sets l, src/engine/leaderboards/league-final.ts)

  ARGV[1] how many move up (0 in the highest tier)
  ARGV[2] how many move down (0 in the lowest tier)
  ARGV[3] the league's cohort size

  Returns { 1 (decided now) or 0 (decided before), 1 when logged already (l) or 0,
  '<n>|<p>|<d>|<s>', user id, '<p|d|s>|<rank>|<value>', ... }.
]]
local rankingKey = KEYS[1]
local outcomeKey = KEYS[2]
local promote = tonumber(ARGV[1])
local demote = tonumber(ARGV[2])
local cohortSize = tonumber(ARGV[3])

if redis.call('EXISTS', outcomeKey) == 1 then
  local out = { 0, 0, '' }
  local counts = {}
  local held = redis.call('HGETALL', outcomeKey)
  for i = 1, #held, 2 do
    local field = held[i]
    if string.sub(field, 1, 2) == 'u:' then
      out[#out + 1] = string.sub(field, 3)
      out[#out + 1] = held[i + 1]
    elseif field == 'l' then
      out[2] = 1
    else
      counts[field] = held[i + 1]
    end
  end
  out[3] = (counts.n or '0') .. '|' .. (counts.p or '0') .. '|' .. (counts.d or '0') .. '|' .. (counts.s or '0')
  return out
end

local ranked = redis.call('ZREVRANGE', rankingKey, 0, -1, 'WITHSCORES')
local participants = #ranked / 2
local of = math.max(cohortSize, participants, 1)
promote = math.floor(promote * participants / of)
demote = math.floor(demote * participants / of)
while participants > 0 and promote + demote >= participants do
  if demote > 0 then demote = demote - 1 else promote = promote - 1 end
end
local out = { 1, 0, '' }
local fields = { 'n', participants }
local counts = { p = 0, d = 0, s = 0 }
for i = 1, #ranked, 2 do
  local rank = (i + 1) / 2
  local member = ranked[i]
  local userId = string.sub(member, string.find(member, '|', 1, true) + 1)
  local move = 's'
  if rank <= promote then
    move = 'p'
  elseif rank > participants - demote then
    move = 'd'
  end
  counts[move] = counts[move] + 1
  local text = move .. '|' .. rank .. '|' .. ranked[i + 1]
  fields[#fields + 1] = 'u:' .. userId
  fields[#fields + 1] = text
  out[#out + 1] = userId
  out[#out + 1] = text
end
fields[#fields + 1] = 'p'
fields[#fields + 1] = counts.p
fields[#fields + 1] = 'd'
fields[#fields + 1] = counts.d
fields[#fields + 1] = 's'
fields[#fields + 1] = counts.s
redis.call('HSET', outcomeKey, unpack(fields))
out[3] = participants .. '|' .. counts.p .. '|' .. counts.d .. '|' .. counts.s
return out
