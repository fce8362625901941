--[[
  The user's clock (src/domain/clock.ts has the rule): the user hash's 'ck', '<hour>|<at>', the
  latest local hour reached (hours since 1970-01-01T00:00 local time) and the instant (ms) of the
  user's last event, then '|<first>|<last>', the days of the clock's latest jump, once it jumped.
  The api works out the hour an event counts in from what it assumes the clock holds; the script
  checks that assumption against the stored clock, here, before anything is written, and the
  event moves the clock.

  The api's word, <clock>: '<hour>', then 'h' when it held the clock at that hour (the zone's own is
  earlier: it assumed the stored hour), then ':<first>-<last>' for the days of the clock's latest
  jump: the ones this event jumps over (the last event less than 24 hours before <now>, the day
  more than one after the stored one's), else the stored ones.

  clockTake(stored, arg, nowText) -> false when the assumption is not the stored clock's (an hour
                         before the stored one, a hold on another, another jump); else true, the
                         latest jump's days (first, last: numbers, or nil) and the field's new
                         value
]]
local function clockTake(stored, arg, nowText)
  local hourText, held, jump = string.match(arg, '^(%-?%d+)(h?)(.*)$')
  local hour = hourText + 0
  local storedHour, atText, storedFirst, storedLast
  if stored then
    storedHour, atText, storedFirst, storedLast = string.match(stored, '^(%-?%d+)|(%-?%d+)|?(%-?%d*)|?(%-?%d*)$')
  end
  local first, last = nil, nil
  if storedHour then
    storedHour = storedHour + 0
    if storedHour > hour or (held == 'h' and storedHour ~= hour) then return false end
    first = math.floor(storedHour / 24) + 1
    last = math.floor(hour / 24) - 1
    if last < first or nowText - atText >= 86400000 then
      first, last = nil, nil
      if storedFirst ~= '' then first, last = storedFirst + 0, storedLast + 0 end
    end
    -- The last event's instant only moves forward too.
    if atText + 0 > nowText + 0 then nowText = atText end
  elseif held == 'h' then
    return false
  end
  if first then
    local firstText, lastText = string.format('%d', first), string.format('%d', last)
    if jump ~= ':' .. firstText .. '-' .. lastText then return false end
    return true, first, last, hourText .. '|' .. nowText .. '|' .. firstText .. '|' .. lastText
  end
  if jump ~= '' then return false end
  return true, nil, nil, hourText .. '|' .. nowText
end
