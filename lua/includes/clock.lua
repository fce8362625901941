--[[
  The user's clock (src/domain/clock.ts has the rule): the user hash's 'ck', '<hour>|<at>', the
  latest local hour reached (hours since 1970-01-01T00:00 local time) and the instant (ms) of the
  user's last event. The api works out the hour an event counts in from what it assumes the clock
  holds; the script checks that assumption against the stored clock, here, before anything is
  written, and the event moves the clock.

  The api's word, <clock>: '<hour>', then 'h' when it held the clock at that hour (the zone's own is
  earlier: it assumed the stored hour), then ':<first>-<last>' when it found the days first..last
  jumped over (the last event less than 24 hours before <now>, the day more than one after the
  stored one's).

  clockTake(stored, arg, nowText) -> false when the assumption is not the stored clock's (an hour
                         before the stored one, a hold on another, other days jumped over); else
                         true, the jumped days (first, last: numbers, or nil) and the field's new
                         value
]]
local function clockTake(stored, arg, nowText)
  local hourText, held, jump = string.match(arg, '^(%-?%d+)(h?)(.*)$')
  local hour = hourText + 0
  local storedHour, atText
  if stored then storedHour, atText = string.match(stored, '^(%-?%d+)|(%-?%d+)$') end
  local expected, first, last = '', nil, nil
  if storedHour then
    storedHour = storedHour + 0
    if storedHour > hour or (held == 'h' and storedHour ~= hour) then return false end
    first = math.floor(storedHour / 24) + 1
    last = math.floor(hour / 24) - 1
    if last >= first and nowText - atText < 86400000 then
      expected = ':' .. string.format('%d', first) .. '-' .. string.format('%d', last)
    else
      first, last = nil, nil
    end
    -- The last event's instant only moves forward too.
    if atText + 0 > nowText + 0 then nowText = atText end
  elseif held == 'h' then
    return false
  end
  if jump ~= expected then return false end
  return true, first, last, hourText .. '|' .. nowText
end
