--[[
  The streak of one user: periods are integers (days, Monday weeks or months since the epoch, in
  the user's zone), so the next period is `last + 1`. State in the user hash:
    s:f     frequency the state belongs to ('d', 'w', 'm'); another one means no streak yet
    s:len   length: periods extended in a row (periods bridged by freezes do not add)
    s:last  the last period covered (extended, or bridged by a freeze)
    s:start the period the streak started
    s:frz   freezes left; s:earn the day index auto-earning counts from
    s:long  the longest length ever
    s:tz    the zone of s:last (a zone change is judged in both zones)
    s:at    when it was last extended (ISO-8601)
    s:p     the period the accumulators s:v:<metricId> belong to
    s:pz    pauses, JSON [[frequency letter, first period, last period, id], ...]: paused periods
            are neither missed nor counted
  History, in its own hash: period -> length ('f<length>' when a freeze bridged it, 'p<length>'
  when a pause covered it).

  The plan's `s` part: f (frequency letter), mode (1: the metric is not in the rule, read only;
  2: update), acc/t (this metric's accumulator field and threshold), all (for evaluation `all`:
  the other metrics' fields and thresholds, flat), fz (freezes: i initial, x max, n interval in
  days, a amount), sa (streak achievements: id, cf, l = length, ua).

  streakFields(s)  the user-hash fields to read, after 'tz' and 'id'
  streakState(s, stored, day)  the state decoded from the HMGET reply (stored[3...]), with
                                freezes granted and auto-earned as of `day`
  pausedBetween(s, st, from, to)  how many periods from..to a pause covers
]]
local STREAK_FIELDS = {'s:f', 's:len', 's:last', 's:start', 's:frz', 's:earn', 's:long', 's:p', 's:tz', 's:pz'}
-- In the HMGET reply: 'tz', 'id', the fields above, then this metric's accumulator and the others'.
local ACC = 3 + #STREAK_FIELDS

local function streakFields(s)
  local fields = {}
  for i = 1, #STREAK_FIELDS do fields[i] = STREAK_FIELDS[i] end
  if s.mode == 2 then
    fields[#fields + 1] = s.acc
    if s.all then
      for i = 1, #s.all, 2 do fields[#fields + 1] = s.all[i] end
    end
  end
  return fields
end

local function streakState(s, stored, day)
  local st = {
    len = 0, last = nil, start = nil, frz = 0, earn = nil, long = tonumber(stored[9]) or 0,
    accPeriod = tonumber(stored[10]), tz = stored[11], pz = stored[12],
  }
  if stored[3] == s.f then
    st.len = tonumber(stored[4]) or 0
    st.last = tonumber(stored[5])
    st.start = tonumber(stored[6])
  end
  if s.fz then
    st.frz = tonumber(stored[7])
    st.earn = tonumber(stored[8])
    if st.frz == nil then
      st.frz = s.fz.i
      st.earn = day
    end
    if s.fz.n > 0 and s.fz.a > 0 and st.earn then
      local k = math.floor((day - st.earn) / s.fz.n)
      if k > 0 then
        st.frz = math.min(s.fz.x, st.frz + k * s.fz.a)
        st.earn = st.earn + k * s.fz.n
      end
    end
  end
  return st
end

local function pausedBetween(s, st, from, to)
  if not st.pz or to < from then return 0 end
  local count = 0
  for _, p in ipairs(cjson.decode(st.pz)) do
    if p[1] == s.f then
      local a, b = math.max(from, p[2]), math.min(to, p[3])
      if b >= a then count = count + b - a + 1 end
    end
  end
  return math.min(count, to - from + 1)
end

--[[
  streakUpdate: the event adds `value` to its metric's accumulator for period `n`; when the rule
  is met and period n is not covered yet, the streak extends: +1 after the last period, bridged by
  freezes over missed periods when there are enough, else it restarts at 1. `nOld` is period n
  judged in the zone of s:last when the user changed zone (a move must neither lose nor repeat a
  period). Writes the state in one HSET, the history in another.

  Returns whether the streak was extended, and the length before.
]]
local function streakUpdate(userKey, historyKey, s, st, stored, n, nOld, value, stamp, tz)
  local fields = {'s:p', n}
  local samePeriod = st.accPeriod == n
  local acc = (samePeriod and tonumber(stored[ACC]) or 0) + tonumber(value)
  fields[#fields + 1] = s.acc
  fields[#fields + 1] = string.format('%.15g', acc)
  local met = acc >= s.t
  if s.all then
    for i = 1, #s.all, 2 do
      local other = 0
      if samePeriod then other = tonumber(stored[ACC + (i + 1) / 2]) or 0
      else
        fields[#fields + 1] = s.all[i]
        fields[#fields + 1] = 0
      end
      if s.ev == 'all' then met = met and other >= s.all[i + 1] end
    end
  end

  local extended = false
  local before = st.len
  local covered = st.last ~= nil and (n <= st.last or (nOld ~= nil and nOld <= st.last))
  if met and not covered then
    local history = {}
    if st.last == nil or st.len == 0 then
      st.len = 1
      st.start = n
    else
      local now = n
      if nOld ~= nil and nOld < now then now = nOld end
      local gap = now - st.last - 1 - pausedBetween(s, st, st.last + 1, now - 1)
      if gap <= st.frz then
        -- Paused periods in between are marked 'p', the missed ones bridged by freezes 'f'.
        for q = st.last + 1, now - 1 do
          history[#history + 1] = q
          history[#history + 1] = (pausedBetween(s, st, q, q) > 0 and 'p' or 'f') .. st.len
        end
        if gap > 0 then st.frz = st.frz - gap end
        st.len = st.len + 1
      else
        st.frz = 0
        st.len = 1
        st.start = n
      end
    end
    st.last = n
    if st.len > st.long then st.long = st.len end
    history[#history + 1] = n
    history[#history + 1] = st.len
    redis.call('HSET', historyKey, unpack(history))
    extended = true
    for _, kv in ipairs({{'s:f', s.f}, {'s:len', st.len}, {'s:last', n}, {'s:start', st.start}, {'s:long', st.long},
      {'s:tz', tz}, {'s:at', stamp}}) do
      fields[#fields + 1] = kv[1]
      fields[#fields + 1] = kv[2]
    end
  end
  if s.fz then
    fields[#fields + 1] = 's:frz'
    fields[#fields + 1] = st.frz
    fields[#fields + 1] = 's:earn'
    fields[#fields + 1] = st.earn
  end
  redis.call('HSET', userKey, unpack(fields))
  return extended, before
end
