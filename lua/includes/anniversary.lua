--[[
  A new user's first anniversary, written by the event that creates them while anniversary
  achievements are active (the api works out every later one: src/domain/anniversaries.ts, which
  this agrees with).

  anniversaryFirst(userKey, dueKey, member, day, now, years)
    day      the event's local day (YYYY-MM-DD): the user's creation day, their anniversaries' anchor
    now      the event's time (ms)
    years    the fewest years of the anniversary achievements
  Writes 'an' (the `years`-th anniversary of `day`: the same month and day, February 29th on the
  28th in a year without one) and 'an:d' (`day`) into the user hash, and puts `member` in the
  partition's anniversary due set at a bound no later than the day's start in UTC+14 (`years`
  times 365 days after `now`, less 3): the workers look again, with the user's calendar, then.
]]
local function anniversaryFirst(userKey, dueKey, member, day, now, years)
  local year = tonumber(string.sub(day, 1, 4)) + years
  local monthDay = string.sub(day, 6)
  if monthDay == '02-29' and not (year % 4 == 0 and (year % 100 ~= 0 or year % 400 == 0)) then monthDay = '02-28' end
  redis.call('HSET', userKey, 'an', string.format('%04d-%s', year, monthDay), 'an:d', day)
  redis.call('ZADD', dueKey, string.format('%d', now + (years * 365 - 3) * 86400000), member)
end
