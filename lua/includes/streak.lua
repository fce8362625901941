--[[
  The streak of one user. Periods are integers (days, Monday weeks or months since the epoch, in
  the user's zone), so the next period is `last + 1`. The state is one field of the user hash,
  's' (one field to read and one to write: a dozen separate fields cost the event twice as much):

    <f>|<len>|<last>|<start>|<frz>|<earn>|<long>|<p>|<tz>|<acc>;<acc>;...

    f      the frequency letter ('d', 'w', 'm') of len/last/start/p; another one: no streak yet
    len    periods extended in a row (periods bridged by freezes or pauses do not add)
    last   the last period covered; start: the period the streak started
    frz    freezes left; earn: the day index auto-earning counts from
    long   the longest length ever
    p      the period the accumulators belong to
    tz     the zone `last` was judged in (a zone change is judged in both zones)
    acc    per metric of the rule, in the rule's order: what the metric added in period p

  Beside it: 's:at' (when it was last extended, ISO-8601) and 's:pz' (pauses, JSON
  [[frequency letter, first period, last period, id], ...]: paused periods are neither missed
  nor counted). History, in its own hash: period -> length ('f<length>' when a freeze bridged it,
  'p<length>' when a pause covered it).

  The rule arrives as a compact string (see recordEventPlan's ARGV[12]); parseRule turns it into
  {f, mode (1: this metric is not in the rule; 2: it is), i (this metric's position in the rule),
  t (the rule's thresholds, in order), all (1 for evaluation `all`), fz ({initial, max, interval,
  amount}, or false), sa (1 when streak achievements exist)}.

  parseRule(hot)               the rule
  parseStreak(packed)          the stored fields, or an empty state
  packStreak(st)               the field's value
  streakState(s, packed, pz, day)  the state with freezes granted and auto-earned as of `day`
  pausedBetween(s, st, from, to)   how many periods from..to a pause covers
  streakUpdate(...)            adds an event; see below
]]
local function parseRule(hot)
  local f, mode, position, ts, all, fz, sa = string.match(hot, '^(%a)|(%d)|(%d+)|([^|]*)|(%d)|([^|]*)|(%d)$')
  local thresholds = {}
  for t in string.gmatch(ts, '[^;]+') do thresholds[#thresholds + 1] = tonumber(t) end
  local freezes = false
  if fz ~= '' then
    freezes = {}
    for n in string.gmatch(fz, '[^,]+') do freezes[#freezes + 1] = tonumber(n) end
  end
  return {f, tonumber(mode), tonumber(position), thresholds, tonumber(all), freezes, tonumber(sa)}
end

local function parseStreak(packed)
  local st = {f = '', len = 0, long = 0, tz = '', accs = ''}
  if packed then
    local f, len, last, start, frz, earn, long, p, tz, accs = string.match(packed,
      '^(%a?)|(%-?%d*)|(%-?%d*)|(%-?%d*)|(%-?%d*)|(%-?%d*)|(%d*)|(%-?%d*)|([^|]*)|(.*)$')
    st.f, st.len, st.last, st.start = f, tonumber(len) or 0, tonumber(last), tonumber(start)
    st.frz, st.earn, st.long, st.p = tonumber(frz), tonumber(earn), tonumber(long) or 0, tonumber(p)
    st.tz, st.accs = tz, accs
  end
  return st
end

local function packStreak(st)
  return table.concat({st.f, st.len, st.last or '', st.start or '', st.frz or '', st.earn or '', st.long,
    st.p or '', st.tz, st.accs}, '|')
end

local function streakState(s, packed, pz, day)
  local st = parseStreak(packed)
  st.pz = pz
  if st.f ~= s[1] then
    st.len, st.last, st.start, st.p = 0, nil, nil, nil
  end
  local fz = s[6]
  if fz then
    if st.frz == nil then
      st.frz = fz[1]
      st.earn = day
    end
    if fz[3] > 0 and fz[4] > 0 and st.earn then
      local k = math.floor((day - st.earn) / fz[3])
      if k > 0 then
        st.frz = math.min(fz[2], st.frz + k * fz[4])
        st.earn = st.earn + k * fz[3]
      end
    end
  else
    st.frz = st.frz or 0
  end
  return st
end

local function pausedBetween(s, st, from, to)
  if not st.pz or to < from then return 0 end
  local count = 0
  for _, p in ipairs(cjson.decode(st.pz)) do
    if p[1] == s[1] then
      local a, b = math.max(from, p[2]), math.min(to, p[3])
      if b >= a then count = count + b - a + 1 end
    end
  end
  return math.min(count, to - from + 1)
end

--[[
  streakUpdate: the event adds `value` to its metric's accumulator for `period`; when the rule is
  met and the period is not covered yet, the streak extends: +1 after the last period, with missed
  periods bridged by pauses and freezes when there are enough, else it restarts at 1.
  `periodOld` is the period judged in the zone of `last` after the user changed zone (a move must
  neither lose nor repeat a period). Writes the state in one HSET, the history in another.

  Returns whether the streak was extended, and the length before.
]]
local function streakUpdate(userKey, historyKey, s, st, period, periodOld, value, stamp, tz)
  -- A covered period cannot extend again: what this event adds does not matter (most events).
  if st.last ~= nil and (period <= st.last or (periodOld ~= nil and periodOld <= st.last)) then
    return false, st.len
  end
  local thresholds = s[4]
  local accs = {}
  if st.p == period then
    for a in string.gmatch(st.accs, '[^;]+') do accs[#accs + 1] = tonumber(a) end
  end
  for k = #accs + 1, #thresholds do accs[k] = 0 end
  local i = s[3]
  accs[i] = accs[i] + tonumber(value)
  local met = accs[i] >= thresholds[i]
  if s[5] == 1 then
    for k = 1, #thresholds do
      if accs[k] < thresholds[k] then met = false break end
    end
  end
  st.p = period
  st.accs = table.concat(accs, ';')

  local extended = false
  local before = st.len
  if met then
    local history = {}
    if st.last == nil or st.len == 0 then
      st.len = 1
      st.start = period
    else
      local now = period
      if periodOld ~= nil and periodOld < now then now = periodOld end
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
        st.start = period
      end
    end
    st.f = s[1]
    st.last = period
    st.tz = tz
    if st.len > st.long then st.long = st.len end
    history[#history + 1] = period
    history[#history + 1] = st.len
    redis.call('HSET', historyKey, unpack(history))
    extended = true
    redis.call('HSET', userKey, 's', packStreak(st), 's:at', stamp)
  else
    st.f = s[1]
    redis.call('HSET', userKey, 's', packStreak(st))
  end
  return extended, before
end
