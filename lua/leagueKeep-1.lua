--[[
  Keeps a user's place in a league with the user (src/engine/leaderboards/league-place.ts), in the
  user's slot: their tier, the run they last joined and their cohort there, unless a later run's
  is kept already (a placement of an earlier run arriving late leaves it). Writing the same place
  twice changes nothing.

  KEYS[1] the user's hash        <prefix>:{p<N>}:user:<tenant>:<uid>   field lg:<board id>:
          '<tier index>|<run>|<cohort number>'

  ARGV[1] the field (lg:<board id>)
  ARGV[2] the place, '<tier index>|<run>|<cohort number>'
  ARGV[3] the run (YYYY-MM-DD, its first day)

  Returns 1 when written, 2 when a later run's place is kept, 0 when the user is gone.
]]
local userKey = KEYS[1]
local field = ARGV[1]
local place = ARGV[2]
local run = ARGV[3]

-- An erased user (their hash gone) is not made again by a late placement.
if redis.call('EXISTS', userKey) == 0 then return 0 end
local held = redis.call('HGET', userKey, field)
if held then
  local heldRun = string.match(held, '^[^|]*|([^|]*)|')
  if heldRun and heldRun > run then return 2 end
end
redis.call('HSET', userKey, field, place)
return 1
