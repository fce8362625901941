--[[
  Moves a user's place in a league's run, kept with them (lua/leagueKeep-2.lua), from the cohort
  they joined to the cohort of the tier the outcome of the run before moved them to
  (src/engine/leaderboards/league-relocate.ts), in the user's slot: only while the place kept is
  still the one they are moved from, so doing it again changes nothing. The tier carried and the
  run that moved it (lua/leagueMove-1.lua) stay. The seat taken in the new tier is logged as any
  join's is (a `league` entry, with `lg` when moved now: lua/leagueKeep-2.lua), whatever it answers
  but for a user gone.

  KEYS[1] the user's hash        <prefix>:{p<N>}:user:<tenant>:<uid>   field lg:<board id>:
          '<tier index>|<run>|<cohort number>[|<tier carried>|<run moved by>]'
  KEYS[2] the user's partition's log   <prefix>:{p<N>}:log

  ARGV[1] the field (lg:<board id>)
  ARGV[2] the place moved from, '<tier index>|<run>|<cohort number>'
  ARGV[3] the place moved to, '<tier index>|<run>|<cohort number>'
  ARGV[4] the `league` entry's body (JSON)

  Returns 1 when moved, 2 when moved before, 3 when another place is kept (a later run's), 0 when
  the user is gone.
]]
--- @include "logAdd"

local userKey = KEYS[1]
local log = KEYS[2]
local field = ARGV[1]
local from = ARGV[2]
local to = ARGV[3]
local entry = ARGV[4]

if redis.call('EXISTS', userKey) == 0 then return 0 end
local held = redis.call('HGET', userKey, field)
local tier, run, cohort, rest
if held then tier, run, cohort, rest = string.match(held, '^([^|]*)|([^|]*)|([^|]*)(.*)$') end
local place = tier and (tier .. '|' .. run .. '|' .. cohort)
if place ~= from or place == to then
  logAdd(log, 'league', entry)
  if place == to then return 2 end
  return 3
end
redis.call('HSET', userKey, field, to .. rest)
logAdd(log, 'league', entry, 'lg', to .. rest)
return 1
