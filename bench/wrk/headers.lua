--[[
  One GET, the same bytes every time, for bench/header-check.ts: the request's headers as a
  client sends them (the official SDK's, through undici). event.lua's counting and done() report.

  Arguments (after `--`): header names and values in pairs.
]]
dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'event.lua')

local req

function init(args)
  local headers = {}
  for i = 1, #args, 2 do headers[args[i]] = args[i + 1] end
  req = wrk.format('GET', wrk.path, headers)
end

function request()
  return req
end
