--[[
  before(a, b) -> whether stream entry id a ('<ms>-<n>') comes before b; false when either is not
  one. Leaderboard placements and departures are ordered by the log entry ids of the user's events
  and identifications (lua/leaderboardRank-7.lua).
]]
local function before(a, b)
  local am, an = string.match(a, '^(%d+)-(%d+)$')
  local bm, bn = string.match(b, '^(%d+)-(%d+)$')
  if not am or not bm then return false end
  am, bm = tonumber(am), tonumber(bm)
  return am < bm or (am == bm and tonumber(an) < tonumber(bn))
end
