--[[
  Applies a cohort's outcome (lua/leagueFinalise-2.lua) to one of its users, in the user's slot
  (src/engine/leaderboards/league-final.ts): the tier the user carries into the next run they
  join moves up or down a tier (or stays), once per run. The place kept with the user
  (lua/leagueKeep-2.lua) gains the tier carried and the last run whose outcome moved it:
  '<tier>|<run>|<cohort>|<tier carried>|<run moved by>'; a place without them carries its own tier.
  A user placed in a later run already keeps that place here (its cohort is of the tier they
  joined it in): the finalisation then moves them to a cohort of the tier carried
  (src/engine/leaderboards/league-relocate.ts). Applying a run's outcome again, or an earlier
  run's after a later one, changes nothing.

  KEYS[1] the user's hash        <prefix>:{p<N>}:user:<tenant>:<uid>   field lg:<board id>

  ARGV[1] the field (lg:<board id>)
  ARGV[2] the run decided (YYYY-MM-DD, its first day)
  ARGV[3] the move: 1 up, -1 down, 0 stays
  ARGV[4] the highest tier's index

  Returns 1 when applied, 2 when applied before, 3 when the user holds no place, 0 when the user
  is gone; 11 and 12 for 1 and 2 when the place kept is of a later run (an early joiner's: the
  finalisation reads it then, and only then).
]]
local userKey = KEYS[1]
local field = ARGV[1]
local run = ARGV[2]
local move = tonumber(ARGV[3])
local highest = tonumber(ARGV[4])

-- An erased user (their hash gone) is not made again.
if redis.call('EXISTS', userKey) == 0 then return 0 end
local held = redis.call('HGET', userKey, field)
if not held then return 3 end
local tier, heldRun, cohort, carried, movedBy = string.match(held, '^([^|]*)|([^|]*)|([^|]*)|?([^|]*)|?([^|]*)$')
if not tier then return 3 end
local later = heldRun > run and 10 or 0
if movedBy ~= '' and movedBy >= run then return 2 + later end
local next = tonumber(carried) or tonumber(tier) or 0
next = math.max(0, math.min(highest, next + move))
redis.call('HSET', userKey, field, tier .. '|' .. heldRun .. '|' .. cohort .. '|' .. next .. '|' .. run)
return 1 + later
