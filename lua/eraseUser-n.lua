--[[
  Erases one user from their partition, at once (src/engine/erasure/erase.ts): their keys deleted,
  their members of the partition's sets, due sets and points totals removed, their completions
  taken out of the partition's counters (rarity counts the users there are), and an 'erased'
  entry appended to the log, which names the erasure and not the user. An event of the user runs
  wholly before this script or wholly after it (then it makes a new user). With batch chunks
  queued in the partition, the user's fence: the last chunk's id, under the user hash's name in
  the partition's fences hash (<slot>fences, built from the log's name): the items accepted
  before now are dropped when applied (lua/includes/fence.lua).

  Called with its number of keys first: 9, and one more for each points totals hash and each key deleted.
  KEYS[1] user hash               <slot>user:<tenant>:<uid>
  KEYS[2] partition event log     <slot>log
  KEYS[3] partition user set      <slot>users:<tenant>
  KEYS[4] completion counters     <slot>achc:<tenant>
  KEYS[5] time-trigger due set    <slot>ptdue        member '<tenant>|<user id>'
  KEYS[6] anniversaries due set   <slot>anndue       member '<tenant>|<user id>'
  KEYS[7] notifications due set   <slot>ndue         members JSON ["<kind>", tenant, user id, ...]
  KEYS[8] points.changed due set  <slot>pcdue        members JSON [tenant, user id, system id]
  KEYS[9] points.changed latest   <slot>pcw          fields as pcdue's members
  KEYS[10...] the partition's points totals hashes of the tenant (<slot>ptt:<tenant>:<system>), as many
              as ARGV[4] says; then the user's other keys, deleted (user-metric hashes, streak
              history, points)

  ARGV[1] tenant
  ARGV[2] user id
  ARGV[3] user id as the points totals' field (escaped as in key names)
  ARGV[4] the number of points totals hashes
  ARGV[5] a SCAN pattern that the due sets' JSON members naming the user match (the user id's JSON, glob-escaped)
  ARGV[6] the log entry (JSON)

  Returns {id of the log entry, keys deleted}, or {-4} for an unknown user (nothing changed).
]]
local userKey = KEYS[1]
local logKey = KEYS[2]
local usersKey = KEYS[3]
local completionsKey = KEYS[4]
local timeDueKey = KEYS[5]
local anniversariesKey = KEYS[6]
local notificationsKey = KEYS[7]
local pointsDueKey = KEYS[8]
local pointsLatestKey = KEYS[9]

local tenant = ARGV[1]
local userId = ARGV[2]
local totalsField = ARGV[3]
local totals = tonumber(ARGV[4])
local pattern = ARGV[5]
local entry = ARGV[6]

--- @include "logAdd"

if redis.call('EXISTS', userKey) == 0 then return {-4} end

-- Each achievement the user completed leaves the partition's count.
local fields = redis.call('HKEYS', userKey)
for i = 1, #fields do
  local f = fields[i]
  if string.sub(f, 1, 2) == 'c:' then redis.call('HINCRBY', completionsKey, string.sub(f, 3), -1) end
end

redis.call('SREM', usersKey, userId)
local bar = tenant .. '|' .. userId
redis.call('ZREM', timeDueKey, bar)
redis.call('ZREM', anniversariesKey, bar)

-- The JSON members naming the user at position `at` (after the tenant).
local function theirs(members, at)
  local out = {}
  for i = 1, #members do
    local ok, m = pcall(cjson.decode, members[i])
    if ok and type(m) == 'table' and m[at - 1] == tenant and m[at] == userId then out[#out + 1] = members[i] end
  end
  return out
end

-- `scan` is ZSCAN or HSCAN; answers the members (fields) matching the pattern.
local function scanned(scan, key)
  local found, cursor = {}, '0'
  repeat
    local r = redis.call(scan, key, cursor, 'MATCH', pattern, 'COUNT', 1000)
    cursor = r[1]
    -- ZSCAN answers member, score; HSCAN field, value.
    for i = 1, #r[2], 2 do found[#found + 1] = r[2][i] end
  until cursor == '0'
  return found
end

local function removeAll(command, key, members)
  for i = 1, #members, 500 do
    redis.call(command, key, unpack(members, i, math.min(i + 499, #members)))
  end
end

removeAll('ZREM', notificationsKey, theirs(scanned('ZSCAN', notificationsKey), 3))
removeAll('ZREM', pointsDueKey, theirs(scanned('ZSCAN', pointsDueKey), 2))
removeAll('HDEL', pointsLatestKey, theirs(scanned('HSCAN', pointsLatestKey), 2))

for i = 10, 9 + totals do redis.call('HDEL', KEYS[i], totalsField) end
local deleted = redis.call('DEL', userKey)
local slot = string.sub(logKey, 1, -4)
local last = redis.call('XREVRANGE', slot .. 'bq', '+', '-', 'COUNT', 1)
if #last > 0 then redis.call('HSET', slot .. 'fences', userKey, last[1][1]) end
for i = 10 + totals, #KEYS do deleted = deleted + redis.call('DEL', KEYS[i]) end

return {logAdd(logKey, 'erased', entry), deleted}
