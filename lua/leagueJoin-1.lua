--[[
  Places a user in the open cohort of their tier in one run of a league (src/engine/leaderboards/
  league-place.ts), on the tier's own slot: cohorts fill in arrival order, each up to the cohort
  size in force when its users joined, so none ever holds more. A user placed already gets the
  same cohort again (a retry, or two events of a new user at once), so joining twice changes
  nothing.

  KEYS[1] the tier's cohorts     <prefix>:{lb:<tenant>:<board>:<run>:t<tier>}:c   hash:
          o the open cohort's number (from 0), n the users in it, u:<user id> -> the user's cohort

  ARGV[1] user id
  ARGV[2] cohort size

  Returns { the user's cohort number (from 0), o, n after the join }: the tier's state, which the
  place kept with the user logs (lua/leagueKeep-2.lua) for a restore to seat the tier again.
]]
local cohortsKey = KEYS[1]
local userField = 'u:' .. ARGV[1]
local size = tonumber(ARGV[2])

local held = redis.call('HGET', cohortsKey, userField)
local state = redis.call('HMGET', cohortsKey, 'o', 'n')
local open, filled = tonumber(state[1] or '0'), tonumber(state[2] or '0')
if held then return { tonumber(held), open, filled } end
if filled >= size then
  open, filled = open + 1, 0
end
redis.call('HSET', cohortsKey, 'o', open, 'n', filled + 1, userField, open)
return { open, open, filled + 1 }
