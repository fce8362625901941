--[[
  The streak of one user. Periods are integers (days, Monday weeks or months since the epoch, in
  the user's zone), so the next period is `last + 1`. The state is one field of the user hash,
  's' (one field to read and one to write, where separate fields would each cost a lookup and a
  write):

    <f>|<len>|<last>|<start>|<frz>|<earn>|<long>|<p>|<tz>|<acc>;<acc>;...|<run>

    f      the frequency letter ('d', 'w', 'm') of len/last/start/p; another one: no streak yet
    len    periods extended in a row (periods bridged by freezes or pauses do not add)
    last   the last period covered; start: the period the streak started
    frz    freezes held as of day `earn` ('': the initial grant, not touched yet); earn: the day
           index auto-earning counts from. Freezes are worked out when spent or read, not on
           every extension: min(max, frz + floor((day - earn) / interval) * amount)
    long   the longest length ever
    p      the period the accumulators belong to
    tz     the zone of the event that covered `last` (the instant its period ends is the one of
           that zone: the expiry the rankings and reminders take)
    acc    per metric of the rule, in the rule's order: what the metric added in period p ('' once
           the period is covered)
    run    the first period of the run that ends at `last`: periods extended one after the other,
           the length growing by one each (absent or '': no run)

  Beside it: 's:at' (when it was last extended, ISO-8601; absent while the only extension is the
  one of the event that created the user, whose 'created' says when) and 's:pz' (pauses, a JSON
  list of [frequency letter, first period, last period, id]: paused periods are neither missed
  nor counted). History, in its own hash: period -> length ('f<length>' when a freeze bridged it,
  'p<length>' when a pause covered it). The periods of the run are not in it: period q of the run
  had length len - (last - q). They are written out (runHistory) only when the run ends in a way
  that changes that (a restart, periods bridged, a restore), so the usual extension
  writes no history at all (a command and, for a new user, a key less).
  Readers take an entry of the hash first, then the run (src/routes/app/streaks.ts streakHistory).

  The rule arrives as a compact string (the plan's hot part, recordEventPlan's <hot>):
  '<f><mode><all><sa><fz>|<position>|<t>;<t>...|<initial>,<max>,<interval>,<amount>', then
  '|<weekdays off>' (digits 0-6) for a daily rule with days off; the plan reads its first five
  characters, and the days off once per plan (lua/includes/hotPlan.lua: plan.off), and ruleDetails turns the rest into
  {position (this metric's position in the rule), thresholds (the rule's, in order), freezes
  ({initial, max, interval, amount}, or false)} when an event first needs it, and keeps it with
  the plan: not for an event that meets the rule on its own and extends the streak by one period
  (the common extension).

  What shaped this file: each call of a C function costs the event, tonumber's most of all, and
  so do a capture and a table field added after the constructor; strings are joined with ..
  rather than formatted (string.format goes through vfprintf), and numbers become text through the
  digits memo rather than tostring (glibc's float formatting).

  ruleDetails(plan)            the rule's details, parsed once per plan
  parseStreak(packed)          the stored fields, or an empty state
  packStreak(st)               the field's value
  runHistory(st)               the run's periods as history entries (the last 365), a list of
                               field/value pairs
  int(x), num(x)               an integer (nil: '') or any number as a string, cheaply
  earnFreezes(freezes, st, day)   the freezes held on `day` (freezes: the rule's), written into st
  pausedBetween(f, st, from, to, off)   how many periods from..to a pause of frequency f or a day
                               off (off: the plan's, or nil) covers, each once
  restingBetween(f, st, from, to, off)  pausedBetween's, and the days the user's clock jumped
                               over (st.jf..st.jl, set for a daily rule: lua/includes/clock.lua),
                               each once
  streakUpdate(...)            adds an event; see below
]]
--- @include "digits"
-- Kept with the plan (shared: read only, like the plan): the rule is a pure function of the plan.
local function ruleDetails(plan)
  local position, ts, fz = string.match(plan.rule, '^.....|(%d+)|([^|]*)|([^|]*)|?[0-6]*$')
  local thresholds = {}
  for t in string.gmatch(ts, '[^;]+') do thresholds[#thresholds + 1] = tonumber(t) end
  local freezes = false
  if fz ~= '' then
    local initial, max, interval, amount = string.match(fz, '^(%d+),(%d+),(%d+),(%d+)$')
    freezes = {initial = initial + 0, max = max + 0, interval = interval + 0, amount = amount + 0}
  end
  local details = {position = position + 0, thresholds = thresholds, freezes = freezes}
  plan.ruleDetails = details
  return details
end

local function parseStreak(packed)
  if not packed then
    return {f = '', len = 0, last = nil, start = nil, frz = nil, earn = nil, long = 0, p = nil, tz = '', accs = '', pz = nil,
      run = nil}
  end
  local f, len, last, start, frz, earn, long, p, tz, accs, run = string.match(packed,
    '^(%a?)|(%-?%d*)|(%-?%d*)|(%-?%d*)|(%-?%d*)|(%-?%d*)|(%d*)|(%-?%d*)|([^|]*)|([^|]*)|?(%-?%d*)$')
  -- One constructor with every field: a table grown field by field rehashes several times.
  return {f = f, len = tonumber(len) or 0, last = tonumber(last), start = tonumber(start), frz = tonumber(frz),
    earn = tonumber(earn), long = tonumber(long) or 0, p = tonumber(p), tz = tz, accs = accs, pz = nil, run = tonumber(run)}
end

-- Numbers become strings here without tostring's '%.14g' (glibc's float formatting), and
-- remembered (lua/includes/digits.lua).
local function int(x)
  if x == nil then return '' end
  return digits(x)
end

local function num(x)
  if x == math.floor(x) then return digits(x) end
  return tostring(x)
end

-- Joined, not formatted: every '%s' of string.format is a vfprintf conversion. int() is inlined
-- as its memo lookup (digitsOf: lua/includes/digits.lua): every extension packs the state, and a
-- call of a Lua function costs more than the lookup.
local function packStreak(st)
  local len, last, start, frz, earn, long, p, run = st.len, st.last, st.start, st.frz, st.earn, st.long, st.p, st.run
  return st.f .. '|' .. (len and (digitsOf[len] or digits(len)) or '') .. '|' ..
    (last and (digitsOf[last] or digits(last)) or '') .. '|' .. (start and (digitsOf[start] or digits(start)) or '') .. '|' ..
    (frz and (digitsOf[frz] or digits(frz)) or '') .. '|' .. (earn and (digitsOf[earn] or digits(earn)) or '') .. '|' ..
    (long and (digitsOf[long] or digits(long)) or '') .. '|' .. (p and (digitsOf[p] or digits(p)) or '') .. '|' ..
    st.tz .. '|' .. st.accs .. '|' .. (run and (digitsOf[run] or digits(run)) or '')
end

-- The run's periods as history entries, the last 365 of them (a reader asks for 365 periods at
-- most, counted back from now, which is never before `last`).
local function runHistory(st)
  local out = {}
  if st.run == nil or st.last == nil or st.run > st.last then return out end
  local from = st.run
  if from < st.last - 364 then from = st.last - 364 end
  for q = from, st.last do
    out[#out + 1] = int(q)
    out[#out + 1] = int(st.len - (st.last - q))
  end
  return out
end

local function earnFreezes(freezes, st, day)
  if not freezes then
    st.frz = st.frz or 0
    return
  end
  if st.frz == nil then
    st.frz = freezes.initial
    st.earn = st.earn or day
  end
  local interval, amount = freezes.interval, freezes.amount
  if interval > 0 and amount > 0 and st.earn then
    local k = math.floor((day - st.earn) / interval)
    if k > 0 then
      st.frz = math.min(freezes.max, st.frz + k * amount)
      st.earn = st.earn + k * interval
    end
  end
end

-- Days d in from..to whose weekday ((d + 4) % 7: day 0, 1970-01-01, was a Thursday) is off.
local function daysOffBetween(off, from, to)
  if to < from then return 0 end
  local weeks = math.floor((to - from + 1) / 7)
  local count = weeks * off.n
  for d = from + weeks * 7, to do
    if off[(d + 4) % 7] then count = count + 1 end
  end
  return count
end

local function pausedBetween(f, st, from, to, off)
  if to < from or (not st.pz and not off) then return 0 end
  local count = 0
  if off then count = daysOffBetween(off, from, to) end
  if st.pz then
    for _, p in ipairs(cjson.decode(st.pz)) do
      if p[1] == f then
        local a, b = math.max(from, p[2]), math.min(to, p[3])
        if b >= a then
          count = count + b - a + 1
          if off then count = count - daysOffBetween(off, a, b) end
        end
      end
    end
  end
  return math.min(count, to - from + 1)
end

local function restingBetween(f, st, from, to, off)
  if to < from then return 0 end
  local count = pausedBetween(f, st, from, to, off)
  if st.jf then
    for d = math.max(from, st.jf), math.min(to, st.jl) do
      if pausedBetween(f, st, d, d, off) == 0 then count = count + 1 end
    end
  end
  return math.min(count, to - from + 1)
end

--[[
  streakUpdate(userKey, slot, plan, st, period, day, value, metAlone, stamp, tz):
  the event adds `value` to its metric's accumulator for `period` (the period is not covered yet);
  when the rule is met, the streak extends: +1 after the last period, with missed periods bridged
  by pauses, days off, days the user's clock jumped over and freezes when there are enough, else
  it restarts at 1. `metAlone` says the event meets the rule by itself (the api knows: one metric,
  or `any`, and a value at the threshold), so no accumulator is read. `plan` is the metric's plan
  (lua/includes/hotPlan.lua): the rule as text (`rule`), its letter and flags, and its details
  once parsed (`ruleDetails`). Writes the state in one HSET (with 's:at' = `stamp`, unless `stamp`
  is nil), and the history in another only when the run ends (see the top of this file), in the
  history hash beside the user hash (<slot>sh:<tenant>:<uid>, its name joined only then).

  Returns whether the streak was extended, the length before, and the state as stored.
]]
local function streakUpdate(userKey, slot, plan, st, period, day, value, metAlone, stamp, tz)
  local f = plan.letter
  local s -- the rule's details (ruleDetails), when needed
  local met = metAlone
  if met then
    st.accs = ''
  else
    s = plan.ruleDetails or ruleDetails(plan)
    local thresholds = s.thresholds
    if #thresholds == 1 then
      -- One metric in the rule: one accumulator, no list to split or join.
      local acc = tonumber(value)
      if st.p == period then acc = acc + (tonumber(st.accs) or 0) end
      met = acc >= thresholds[1]
      st.accs = met and '' or num(acc)
    else
      local accs = {}
      if st.p == period then
        for a in string.gmatch(st.accs, '[^;]+') do accs[#accs + 1] = tonumber(a) end
      end
      for k = #accs + 1, #thresholds do accs[k] = 0 end
      local i = s.position
      accs[i] = accs[i] + tonumber(value)
      met = accs[i] >= thresholds[i]
      if plan.all then
        for k = 1, #thresholds do
          if accs[k] < thresholds[k] then met = false break end
        end
      end
      if met then
        st.accs = ''
      else
        for k = 1, #accs do accs[k] = num(accs[k]) end
        st.accs = table.concat(accs, ';')
      end
    end
  end
  st.p = period
  st.f = f
  local packed
  if not met then
    packed = packStreak(st)
    redis.call('HSET', userKey, 's', packed)
    return false, st.len, packed
  end

  local before = st.len
  local history -- entries to write, when the run ends
  if st.last == nil or st.len == 0 then
    if st.run then history = runHistory(st) end
    st.len, st.start = 1, period
    -- Auto-earning counts from the first day the user had a streak (freezes configured).
    if st.earn == nil and plan.fz then st.earn = day end
  elseif period == st.last + 1 and st.run then
    -- The run goes on: nothing to write.
    st.len = st.len + 1
  elseif period == st.last + 1 then
    -- No run yet (a state stored without one, a restore).
    st.len = st.len + 1
  else
    s = s or plan.ruleDetails or ruleDetails(plan)
    earnFreezes(s.freezes, st, day)
    history = runHistory(st)
    local gap = period - st.last - 1 - restingBetween(f, st, st.last + 1, period - 1, plan.off)
    -- Freezes bridge only while the rule has them (a count stored under an earlier rule bridges
    -- nothing, as every reader says).
    if gap <= (s.freezes and st.frz or 0) then
      -- Paused periods in between are marked 'p', the missed ones bridged by freezes 'f' (and the
      -- days the clock jumped over, which spend none).
      for q = st.last + 1, period - 1 do
        history[#history + 1] = int(q)
        history[#history + 1] = (pausedBetween(f, st, q, q, plan.off) > 0 and 'p' or 'f') .. int(st.len)
      end
      if gap > 0 then st.frz = st.frz - gap end
      st.len = st.len + 1
    else
      st.frz = 0
      st.len = 1
      st.start = period
    end
  end
  -- This period starts a run, unless the run went on.
  if history or st.run == nil or st.last == nil or period ~= st.last + 1 then st.run = period end
  st.last = period
  st.tz = tz
  if st.len > st.long then st.long = st.len end
  if history and #history > 0 then redis.call('HSET', slot .. 'sh:' .. string.sub(userKey, #slot + 6), unpack(history)) end
  packed = packStreak(st)
  -- No stamp: the event creates the user, and 'created' says when (a field less to write).
  if stamp then redis.call('HSET', userKey, 's', packed, 's:at', stamp) else redis.call('HSET', userKey, 's', packed) end
  return true, before, packed
end
