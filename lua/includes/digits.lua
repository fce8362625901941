--[[
  digits(x) -> an integer's decimal digits, as string.format('%d', x) writes them, remembered:
  string.format goes through vfprintf, a table lookup costs a fraction of that. The numbers events
  write repeat across users and events (totals, points, award counts, a streak's periods and
  lengths), so most are found. A pure function of its argument, like hotPlan's memo (a reload
  merely starts it empty); bounded: it starts over at 1,024 numbers (the Lua collector walks the
  table, entry by entry, on every cycle). The hot paths look the memo up themselves,
  `digitsOf[x] or digits(x)`, and call digits() only when it misses: a call of a Lua function
  costs more than the lookup.
]]
local digitsOf, digitsCount = {}, 0

local function digits(x)
  local s = digitsOf[x]
  if s then return s end
  s = string.format('%d', x)
  -- NaN cannot be a table key (and never comes from Redis); anything else can.
  if x == x then
    if digitsCount >= 1024 then digitsOf, digitsCount = {}, 0 end
    digitsOf[x] = s
    digitsCount = digitsCount + 1
  end
  return s
end
