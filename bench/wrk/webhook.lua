--[[
  A webhook delivery, the same bytes every time, for bench/post-floor.ts: what one POST costs the
  receiver and the leanest HTTP/1.1 client there is. event.lua's counting and done() report.

  Arguments (after `--`): the body, then header names and values in pairs.
]]
dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'event.lua')

local req

function init(args)
  local headers = {}
  for i = 2, #args, 2 do headers[args[i]] = args[i + 1] end
  req = wrk.format('POST', wrk.path, headers, args[1])
end

function request()
  return req
end
