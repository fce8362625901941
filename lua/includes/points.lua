--[[
  Points: the awards of points systems' triggers in the phase-1 scripts. A context gathers the
  awards of one request in memory first, so that an event refused for lack of points writes
  nothing; pointsCommit then writes them:

    user hash               pt:<systemId> -> the user's total (an integer)
    <base><systemId>        hash: d:<local day> -> the points change that day
    <base><systemId>:a      list: the most recent awards, newest first, at most 100, each
                            {"e": request id, "x": position in the request, "t": trigger id,
                             "a": awarded, "n": total after, "d": ISO-8601 time}

  <base> is the user's points key base, passed in KEYS ('<slot>up:<tenant>:<uid>:'): a script
  cannot know the systems' keys beforehand, and every key built from the base shares its slot.

  A trigger (decoded from the plan's details, see src/domain/points.ts): i = id, s = system id,
  p = points, ua = user filter, b = 1 when it refuses to take the total below 0, l = streak length.
  Totals never go below 0 nor above the system's cap (details `s`: system id -> maxPoints).

  pointsContext(userKey, base, caps, requestId, stamp, dayField)  a context
  pointsAward(pc, trigger, times)   adds trigger.p × times to its system in memory; false when the
                                    trigger blocks and the total would go below 0
  pointsCommit(pc)                  writes the awards made since the last commit
]]
local function pointsContext(userKey, base, caps, requestId, stamp, dayField)
  return {userKey = userKey, base = base, caps = caps, rid = requestId, stamp = stamp, dayField = dayField,
    totals = {}, awards = {}, written = 0}
end

local function pointsAward(pc, t, times)
  local sys = t.s
  local total = pc.totals[sys]
  if total == nil then
    total = tonumber(redis.call('HGET', pc.userKey, 'pt:' .. sys) or '0')
    pc.totals[sys] = total
  end
  local points = t.p * times
  local new = total + points
  if new < 0 then
    if t.b == 1 then return false end
    new = 0
  end
  local cap = pc.caps[sys]
  if points > 0 and cap ~= nil and new > cap then new = math.max(total, cap) end
  if new ~= total then
    pc.totals[sys] = new
    local a = pc.awards
    a[#a + 1] = sys
    a[#a + 1] = t.i
    a[#a + 1] = new - total
    a[#a + 1] = new
  end
  return true
end

local function pointsCommit(pc)
  local a = pc.awards
  local totals = {}
  for i = pc.written + 1, #a, 4 do
    local key = pc.base .. a[i]
    redis.call('HINCRBY', key, pc.dayField, a[i + 2])
    redis.call('LPUSH', key .. ':a', string.format('{"e":"%s","x":%d,"t":"%s","a":%d,"n":%d,"d":"%s"}',
      pc.rid, (i + 3) / 4, a[i + 1], a[i + 2], a[i + 3], pc.stamp))
    redis.call('LTRIM', key .. ':a', 0, 99)
    totals[a[i]] = a[i + 3]
  end
  pc.written = #a
  for sys, total in pairs(totals) do redis.call('HSET', pc.userKey, 'pt:' .. sys, string.format('%d', total)) end
end
