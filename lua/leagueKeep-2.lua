--[[
  Keeps a user's place in a league with the user (src/engine/leaderboards/league-place.ts), in the
  user's slot: their tier, the run they last joined and their cohort there, unless a later run's
  is kept already (a placement of an earlier run arriving late leaves it), or this run's (two
  placements of a new user at once: the first kept is the user's place, answered to the other).
  The tier carried into the next run and the last run whose outcome moved it
  (lua/leagueMove-1.lua) stay as they were; a place joined in a tier read before an outcome moved
  it (the tier carried is no longer the one the caller read) is refused, and the caller joins the
  tier carried now: nobody keeps a place in the tier they had before the outcome.

  Whatever it answers (but for a user gone), the join is logged in the user's partition's log, a
  `league` entry (src/model/log.ts): the seat it took in the tier (lua/leagueJoin-1.lua), and when
  the place was written, the field as written (`lg`). A restore seats the tiers and the users from
  these entries, which say in which order the joins happened, what the events' entries cannot
  (src/engine/durability/league-seats.ts).

  KEYS[1] the user's hash        <prefix>:{p<N>}:user:<tenant>:<uid>   field lg:<board id>:
          '<tier index>|<run>|<cohort number>[|<tier carried>|<run moved by>]'
  KEYS[2] the user's partition's log   <prefix>:{p<N>}:log

  ARGV[1] the field (lg:<board id>)
  ARGV[2] the place, '<tier index>|<run>|<cohort number>'
  ARGV[3] the run (YYYY-MM-DD, its first day)
  ARGV[4] the tier carried the caller read and joined ('' for a user who kept no place)
  ARGV[5] the `league` entry's body (JSON)

  Returns 1 when written, 2 when a later run's place is kept, 3 when the tier carried is no longer
  ARGV[4], 0 when the user is gone, and the place kept ('<tier index>|<run>|<cohort number>') when
  this run's was kept already.
]]
--- @include "logAdd"

local userKey = KEYS[1]
local log = KEYS[2]
local field = ARGV[1]
local place = ARGV[2]
local run = ARGV[3]
local read = ARGV[4]
local entry = ARGV[5]

-- An erased user (their hash gone) is not made again by a late placement.
if redis.call('EXISTS', userKey) == 0 then return 0 end
local held = redis.call('HGET', userKey, field)
local carriedPart = ''
if held then
  local heldTier, heldRun, heldCohort, rest = string.match(held, '^([^|]*)|([^|]*)|([^|]*)(.*)$')
  if heldRun then
    if heldRun > run then
      logAdd(log, 'league', entry)
      return 2
    end
    if heldRun == run then
      logAdd(log, 'league', entry)
      return heldTier .. '|' .. heldRun .. '|' .. heldCohort
    end
    local carried = string.match(rest, '^|([^|]*)') or ''
    if carried == '' then carried = heldTier end
    if read ~= '' and tonumber(carried) ~= tonumber(read) then
      logAdd(log, 'league', entry)
      return 3
    end
    carriedPart = rest
  end
end
redis.call('HSET', userKey, field, place .. carriedPart)
logAdd(log, 'league', entry, 'lg', place .. carriedPart)
return 1
