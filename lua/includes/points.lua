--[[
  Points: the awards of points systems' triggers in the phase-1 scripts. A context gathers the
  awards of one request in memory first, so that an event refused for lack of points writes
  nothing; pointsCommit then writes them:

    user hash            pt:<systemId> -> the user's total (an integer)
                         pn:<systemId> -> how many awards the user ever had in the system
    <base><systemId>     hash: d:<local day> -> the total at the end of that day (as of its last
                               award: one HSET writes it with the award, no read needed)
                               a:<n> -> the n-th award '<ms>|<awarded>|<total after>|<trigger id>'
                               and '|<boost id>,...' when boosts applied (the last 100 are kept;
                               short enough for a listpack)

    <slot>ptt:<tenant>:<systemId>   hash: uid -> the user's total, for the summaries of the
                               tenant's totals (one hash per partition, in the user's slot: written
                               here with the total, no other round trip)

  <base> is the user's points key base, passed in KEYS ('<slot>up:<tenant>:<uid>:'): a script
  cannot know the systems' keys beforehand, and every key built from the base shares its slot.

  Totals never go below 0 nor above the system's cap; an award cut to nothing is not recorded.
  Nor past 2^53 - 1, the largest integer kept exactly: an award that would take a total there is
  not made (the event's script refuses the event, lua/recordEventPlan-4.lua).

  Time triggers: 'tt:<triggerId>' in the user hash holds when the next award is due (ms); the
  partition's due set (a zset, member '<tenant>|<user id>', score the earliest due time) lets the
  workers find users with awards due. The api works out the due times and their local days
  (accruePoints); an event that finds one due hands back to the api first.

  pointsContext(userKey, base, ms, dayField, boosts)   a context: awards dated `ms`, counted on
                                      `dayField`; `boosts` the JSON of the boosts that may apply
                                      (src/domain/points/rules.ts boostsFor) or ''
  pointsLoad(pc, sys, total, count)   caches a system's stored total and award count (read now
                                      when not given)
  pointsAward(pc, sys, cap, trigger, points, block, ms, dayField)   adds `points` to the system in
                                      memory, dated `ms` on `dayField` (default: the context's);
                                      false, 'block' when `block` and the total would go below 0;
                                      false, 'range' when it would pass 2^53 - 1 (not made)
  pointsCommit(pc)                    writes the awards made since the last commit; each award in
                                      pc.awards is then {system, trigger, awarded, total, n, ms, day,
                                      boost ids}
  pointsLog(pc)                       the awards as JSON, for the event log

  Triggers with limits (cooldownSeconds, maxAwards): the event script sets pc.limits (trigger id ->
  {c, x, p}, src/config/plans/lua.ts LuaTriggerLimits), pc.times (the user's clock) and
  pc.limitState ({}); an award such a trigger may not make now is not made (and refuses nothing),
  and pointsCommit writes what the awards made note (lua/includes/limits.lua).
]]
--- @include "limits"
local function pointsContext(userKey, base, ms, dayField, boosts)
  -- '<slot>up:<tenant>:<uid>:': neither the tenant nor the escaped uid holds a ':'.
  local slot, tenant, uid = string.match(base, '^(.*)up:([^:]*):([^:]*):$')
  return {userKey = userKey, base = base, ms = ms, dayField = dayField, totals = {}, counts = {}, awards = {}, written = 0,
    boosts = boosts ~= '' and boosts and cjson.decode(boosts) or nil, tenantTotals = slot .. 'ptt:' .. tenant .. ':', uid = uid}
end

local function pointsLoad(pc, sys, total, count)
  if total == nil then
    local v = redis.call('HMGET', pc.userKey, 'pt:' .. sys, 'pn:' .. sys)
    total, count = v[1], v[2]
  end
  pc.totals[sys] = tonumber(total or '0')
  pc.counts[sys] = tonumber(count or '0')
end

-- Boosts multiply positive awards of their system on the days of their window, in turn, each
-- rounding as it says (after taking off float noise: 10 x 1.1 is 11, not 11.000000000000002).
local function pointsBoost(pc, sys, points, day)
  local applied = ''
  for _, b in ipairs(pc.boosts) do
    if b.s == sys and day >= b.a and (b.b == nil or day <= b.b) and (b.ua == nil or attributesMatch(pc.userKey, b.ua, pc.pending)) then
      local x = points * b.m
      x = math.floor(x * 1e9 + 0.5) / 1e9
      if b.r == 'u' then points = math.ceil(x) elseif b.r == 'n' then points = math.floor(x + 0.5) else points = math.floor(x) end
      applied = applied == '' and b.i or (applied .. ',' .. b.i)
    end
  end
  return points, applied
end

-- The largest total kept exactly: 2^53 - 1 (src/domain/points/rules.ts MAX_POINTS).
local POINTS_MAX = 9007199254740991

-- The total after adding `points` to `before`: never below 0 (nil, 'block' when `block` refuses
-- that), and never above `cap` through an award (a total already above it stays). An award that
-- would take a total past POINTS_MAX, where no lower cap cuts it first, is refused: nil, 'range'.
local function pointsAfter(before, points, cap, block)
  local after = before + points
  if points > 0 and after > POINTS_MAX and (not cap or cap >= POINTS_MAX) then return nil, 'range' end
  if after < 0 then
    if block then return nil, 'block' end
    after = 0
  end
  if points > 0 and cap and after > cap then after = math.max(before, cap) end
  return after
end

-- Writes award n of a system (its line '<ms>|<awarded>|<total after>|<trigger id>[|<boost ids>]')
-- with the day's closing total, and forgets the award 100 before it.
local function pointsRecord(key, n, nText, line, dayField, totalText)
  redis.call('HSET', key, 'a:' .. nText, line, dayField, totalText)
  if n > 100 then redis.call('HDEL', key, string.format('a:%d', n - 100)) end
end

-- An award as the event log carries it: [system, trigger, awarded, total, n, boost ids], the three
-- numbers given as 'awarded,total,n'.
local function pointsLogEntry(sys, trigger, numbers, boosts)
  return '["' .. sys .. '","' .. trigger .. '",' .. numbers .. ',"' .. boosts .. '"]'
end

local function pointsAward(pc, sys, cap, trigger, points, block, ms, dayField)
  local limits = pc.limits and pc.limits[trigger]
  if limits and not limitAllows(pc.userKey, pc.limitState, limits, trigger, ms or pc.ms, pc.times) then return true end
  if pc.totals[sys] == nil then pointsLoad(pc, sys) end
  local boosts = ''
  if points > 0 and pc.boosts then points, boosts = pointsBoost(pc, sys, points, dayField or pc.dayField) end
  local total = pc.totals[sys]
  local new, refused = pointsAfter(total, points, cap, block)
  if new == nil then return false, refused end
  if new ~= total then
    pc.totals[sys] = new
    local a = pc.awards
    a[#a + 1] = {sys, trigger, new - total, new, 0, ms or pc.ms, dayField or pc.dayField, boosts}
    if limits then limitNote(pc.limitState, trigger, ms or pc.ms) end
  end
  return true
end

local function pointsCommit(pc)
  local a = pc.awards
  local user = {}
  for i = pc.written + 1, #a do
    local x = a[i]
    local sys = x[1]
    local n = pc.counts[sys] + 1
    pc.counts[sys] = n
    x[5] = n
    -- Numbers go to Redis formatted with %d: Redis 7.0 formats a Lua number with '%.17g' (glibc's
    -- float formatting, the dearer way). Strings are joined: string.format's '%s' is dearer.
    local total, nText = string.format('%d', x[4]), string.format('%d', n)
    local award = x[6] .. '|' .. string.format('%d', x[3]) .. '|' .. total .. '|' .. x[2]
    if x[8] ~= '' then award = award .. '|' .. x[8] end
    pointsRecord(pc.base .. sys, n, nText, award, x[7], total)
    redis.call('HSET', pc.tenantTotals .. sys, pc.uid, total)
    user['pt:' .. sys] = total
    user['pn:' .. sys] = nText
  end
  pc.written = #a
  local fields = {}
  for f, v in pairs(user) do
    fields[#fields + 1] = f
    fields[#fields + 1] = v
  end
  if pc.limitState then limitFields(pc.limitState, fields) end
  if #fields > 0 then redis.call('HSET', pc.userKey, unpack(fields)) end
end

-- The awards as the event log carries them: a JSON array of [system, trigger, awarded, total, n,
-- boost ids].
local function pointsLog(pc)
  local a = pc.awards
  local json = {}
  for i, x in ipairs(a) do json[i] = pointsLogEntry(x[1], x[2], string.format('%d,%d,%d', x[3], x[4], x[5]), x[8]) end
  return '[' .. table.concat(json, ',') .. ']'
end
