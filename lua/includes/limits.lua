--[[
  Limits against farming (src/domain/limits.ts), decided in the event's script so that no two
  events of one user can pass one together.

  The user's clock comes from the api as '<hour>,<day>,<week>' (the indexes of the local hour,
  day and ISO week in the user's zone), then the metric's limit as '/<max>:<letter>' when it has
  one (letter h, d or w), then '=' when the value is what a logged event counted (a restore
  replays it: counted whole, as it was).

  user-metric hash  lim -> '<letter><index>|<sum counted in that period>' (one field: a new
                    period starts again from 0)
  user hash         tc:<trigger id> -> when the trigger last awarded the user (ms)
                    tx:<trigger id> -> '<letter><index>|<awards in that period>'

  limitClock(clock) -> {h = hour, d = day, w = week} (strings), the metric's max (a number) or nil,
                       its letter, and whether the value is a replay's
  limitTake(userMetricKey, times, max, letter, replay, value)
                    -> the part of `value` that counts (its text), the 'lim' field's new value (nil
                       when nothing is to be written: a value of 0 or below counts as sent and
                       leaves the period's sum), and whether the limit bit. Reads only.
  limitAllows(userKey, state, rule, trigger, ms, times)
                    -> whether a trigger with limits (`rule`: {c = cooldown ms, x = count, p =
                       letter}) may award the user now; `state` caches what was read per trigger
  limitNote(state, trigger, ms) -> notes an award made; limitFields(state, fields) adds the user
                    hash fields to write for the awards noted
]]
--- @include "digits"

-- A number as text: an integer's digits, a fraction's (rounded to 9 decimals already) without
-- trailing zeros.
local function limitText(x)
  if x % 1 == 0 then return digits(x) end
  local s = string.gsub(string.format('%.9f', x), '0+$', '')
  return s
end

local function limitClock(clock)
  local h, d, w, rest = string.match(clock, '^(%-?%d+),(%-?%d+),(%-?%d+)(.*)$')
  local max, letter = string.match(rest, '^/([^:]+):(%a)')
  return {h = h, d = d, w = w}, max and tonumber(max) or nil, letter, string.sub(rest, -1) == '='
end

local function limitTake(userMetricKey, times, max, letter, replay, value)
  local v = tonumber(value)
  if v <= 0 then return value, nil, false end
  local period = letter .. times[letter]
  local used = 0
  local stored = redis.call('HGET', userMetricKey, 'lim')
  if stored then
    local p, sum = string.match(stored, '^([^|]*)|(.*)$')
    if p == period then used = tonumber(sum) end
  end
  local counted = v
  if not replay then
    local room = max - used
    if room < 0 then room = 0 end
    -- Fractions: rounded to 9 decimals, as 0.1 + 0.2 would otherwise leave noise.
    if counted > room then counted = math.floor(room * 1e9 + 0.5) / 1e9 end
  end
  local sum = used + counted
  if sum % 1 ~= 0 then sum = math.floor(sum * 1e9 + 0.5) / 1e9 end
  local text = counted == v and value or limitText(counted)
  return text, period .. '|' .. limitText(sum), counted < v
end

local function limitAllows(userKey, state, rule, trigger, ms, times)
  local s = state[trigger]
  if not s then
    local v = redis.call('HMGET', userKey, 'tc:' .. trigger, 'tx:' .. trigger)
    s = {last = tonumber(v[1] or ''), count = 0, period = nil}
    if rule.p then
      s.period = rule.p .. times[rule.p]
      local p, n = string.match(v[2] or '', '^([^|]*)|(%d+)$')
      if p == s.period then s.count = n + 0 end
    end
    state[trigger] = s
  end
  if rule.c and s.last and ms - s.last < rule.c then return false end
  if rule.x and s.count >= rule.x then return false end
  return true
end

local function limitNote(state, trigger, ms)
  local s = state[trigger]
  s.last, s.count, s.noted = ms + 0, s.count + 1, true
end

local function limitFields(state, fields)
  for trigger, s in pairs(state) do
    if s.noted then
      fields[#fields + 1] = 'tc:' .. trigger
      fields[#fields + 1] = string.format('%d', s.last)
      if s.period then
        fields[#fields + 1] = 'tx:' .. trigger
        fields[#fields + 1] = s.period .. '|' .. string.format('%d', s.count)
      end
      s.noted = false
    end
  end
end
