--[[
  Removes from a streak board's run the users whose streak is lost by now (lua/includes/pruneLost.lua).

  KEYS[1] ranking                <prefix>:{lb:...}:r
  KEYS[2] members                <prefix>:{lb:...}:m
  KEYS[3] expiries               <prefix>:{lb:...}:x     zset user -> ms the streak is lost
  KEYS[4] falls                  <prefix>:{lb:...}:f     counter, counts the removal (leaderboardRank.lua)
  KEYS[5] sequences              <prefix>:{lb:...}:q     hash user -> log entry id (leaderboardRank.lua)

  ARGV[1] now, ms

  Returns how many users left.
]]
local rankingKey = KEYS[1]
local membersKey = KEYS[2]
local expiryKey = KEYS[3]
local fallsKey = KEYS[4]
local sequencesKey = KEYS[5]

--- @include "pruneLost"

return pruneLost(rankingKey, membersKey, expiryKey, fallsKey, sequencesKey, ARGV[1])
