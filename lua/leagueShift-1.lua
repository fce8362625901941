--[[
  Moves a user's place in a league's run, kept with them (lua/leagueKeep-1.lua), from the cohort
  they joined to the cohort of the tier the outcome of the run before moved them to
  (src/engine/leaderboards/league-relocate.ts), in the user's slot: only while the place kept is
  still the one they are moved from, so doing it again changes nothing. The tier carried and the
  run that moved it (lua/leagueMove-1.lua) stay.

  KEYS[1] the user's hash        <prefix>:{p<N>}:user:<tenant>:<uid>   field lg:<board id>:
          '<tier index>|<run>|<cohort number>[|<tier carried>|<run moved by>]'

  ARGV[1] the field (lg:<board id>)
  ARGV[2] the place moved from, '<tier index>|<run>|<cohort number>'
  ARGV[3] the place moved to, '<tier index>|<run>|<cohort number>'

  Returns 1 when moved, 2 when moved before, 3 when another place is kept (a later run's), 0 when
  the user is gone.
]]
local userKey = KEYS[1]
local field = ARGV[1]
local from = ARGV[2]
local to = ARGV[3]

if redis.call('EXISTS', userKey) == 0 then return 0 end
local held = redis.call('HGET', userKey, field)
if not held then return 3 end
local tier, run, cohort, rest = string.match(held, '^([^|]*)|([^|]*)|([^|]*)(.*)$')
if not tier then return 3 end
local place = tier .. '|' .. run .. '|' .. cohort
if place == to then return 2 end
if place ~= from then return 3 end
redis.call('HSET', userKey, field, to .. rest)
return 1
