--[[
  before(a, b) -> whether stream entry id a ('<ms>-<n>') comes before b; false when either is not
  one. Leaderboard placements and departures are ordered by the log entry ids of the user's events
  and identifications (lua/leaderboardRank-8.lua), the streak rankings and points totals too.
  Without patterns or numbers (both dear in Lua): the parts have no leading zeros, so a longer
  part is a larger one, and parts of one length compare as text.
]]
local function before(a, b)
  local ad, bd = string.find(a, '-', 1, true), string.find(b, '-', 1, true)
  if not ad or not bd then return false end
  if ad ~= bd then return ad < bd end
  local am, bm = string.sub(a, 1, ad), string.sub(b, 1, bd)
  if am ~= bm then return am < bm end
  if #a ~= #b then return #a < #b end
  return a < b
end
