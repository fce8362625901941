--[[
  logAdd(key, ...) -> the id of the entry it appends, with the fields ..., to the event log stream
  `key`. The id comes from Redis's clock to the microsecond, '<ms>-<µs within the ms>', so the ids
  of entries in different partitions' logs compare in the order the entries were made: leaderboard
  ties go to who reached the value first by them (src/domain/leaderboards/runs.ts orderOf), whatever
  the service's clock says. When the log holds that id or a later one already (two entries in one
  microsecond, a clock set back), the next id Redis gives ('*'). Built from TIME's strings alone:
  a number turned into a string is a dear sprintf in Lua ('045' is read as 45).
]]
local function logAdd(key, ...)
  local t = redis.call('TIME')
  local us = t[2]
  if #us < 6 then us = string.rep('0', 6 - #us) .. us end
  local added = redis.pcall('XADD', key, t[1] .. string.sub(us, 1, 3) .. '-' .. string.sub(us, 4), ...)
  if type(added) == 'table' then added = redis.call('XADD', key, '*', ...) end
  return added
end
