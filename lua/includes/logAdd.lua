--[[
  logAdd(key, ...) -> the id of the entry it appends, with the fields ..., to the event log stream
  `key`. The id comes from Redis's clock to the microsecond, '<ms>-<µs within the ms>', so the ids
  of entries in different partitions' logs compare in the order the entries were made: leaderboard
  ties go to who reached the value first by them (src/domain/leaderboards.ts orderOf), whatever
  the service's clock says. When the log holds that id or a later one already (two entries in one
  microsecond, a clock set back), the next id Redis gives ('*').
]]
local function logAdd(key, ...)
  local t = redis.call('TIME')
  local us = tonumber(t[2])
  local ms = math.floor(us / 1000)
  local id = t[1] .. (ms < 10 and '00' or ms < 100 and '0' or '') .. ms .. '-' .. (us - ms * 1000)
  local added = redis.pcall('XADD', key, id, ...)
  if type(added) == 'table' then added = redis.call('XADD', key, '*', ...) end
  return added
end
