--[[
  logAdd(key, ...) -> the id of the entry it appends, with the fields ..., to the event log stream
  `key` (a partition's log, '<prefix>:{p<N>}:log'). The id is unique across the installation,
  whichever node of a Cluster holds the partition: '<ms>-1<µs within the ms, 3 digits><N, 5
  digits>' (read by src/model/log.ts arrivalInMs, partitionOfLogId). The time comes from Redis's
  clock to the microsecond, so the ids of entries in different partitions' logs compare in the
  order the entries were made (leaderboard ties go to who reached the value first by them:
  src/domain/leaderboards/runs.ts orderOf, whatever the service's clock says); the partition last,
  so two partitions that append in the same microsecond (two primaries) still differ. The leading 1 tells these ids from those
  written before they carried the partition ('<ms>-<µs within the ms>': a sequence below 10^8).
  When the log holds that id or a later one already (two entries of the partition in one
  microsecond, a clock set back, a node behind the one it took over from), the next id after the
  log's last that ends in the partition's digits (logNextId). Built from TIME's strings alone: a
  number turned into a string is a dear sprintf in Lua ('045' is read as 45).
]]
-- Each log's partition as its 5 digits, kept by key (a function library keeps them between calls;
-- they hold only what the key says), at most 16,384 of them.
local logPartitions, logPartitionsKept = {}, 0
local function logPartition(key)
  local p = logPartitions[key]
  if p then return p end
  -- Every log is a partition's (src/redis/keys.ts partitionLog); anything else as partition 0
  -- rather than an error after the script's writes.
  p = string.match(key, '{p(%d+)}:log$') or '0'
  if #p < 5 then p = string.rep('0', 5 - #p) .. p end
  if logPartitionsKept >= 16384 then logPartitions, logPartitionsKept = {}, 0 end
  logPartitions[key] = p
  logPartitionsKept = logPartitionsKept + 1
  return p
end

-- The id after the log's last one (the last ever given, even if trimmed since) ending in `p`.
local function logNextId(key, p)
  local info = redis.call('XINFO', 'STREAM', key)
  local last
  for i = 1, #info, 2 do
    if info[i] == 'last-generated-id' then last = info[i + 1] break end
  end
  local dash = string.find(last, '-', 1, true)
  local high = math.floor(tonumber(string.sub(last, dash + 1)) / 100000) + 1
  if high < 1000 then high = 1000 end
  return string.sub(last, 1, dash - 1) .. '-' .. string.format('%d', high) .. p
end

local function logAdd(key, ...)
  local p = logPartition(key)
  local t = redis.call('TIME')
  local us = t[2]
  if #us < 6 then us = string.rep('0', 6 - #us) .. us end
  local added = redis.pcall('XADD', key, t[1] .. string.sub(us, 1, 3) .. '-1' .. string.sub(us, 4) .. p, ...)
  if type(added) == 'table' then added = redis.call('XADD', key, logNextId(key, p), ...) end
  return added
end
