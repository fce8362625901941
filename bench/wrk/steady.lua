--[[
  The steady-state workload (bench/README.md, "The steady-state workload"):

    POST <url path>    e.g. /api/metrics/lessons/event
    X-API-KEY: <key>   Content-Type: application/json
    {"user":{"id":"user-<rank>"},"value":1}             a returning user of the population
    {"user":{"id":"new-<runTag>-<thread>-<n>"},"value":1}  a user never seen (share `newShare`)

  The rank is drawn by a power law, rank = floor(population * r^skew), as bench/steady-draw.ts
  draws it, from the same generator: mulberry32 (bench/random.ts), seeded `seed + thread`, two
  draws an event (new or returning, then the rank). No Idempotency-Key.

  Arguments (after `--`): apiKey population newShare skew runTag seed
  Output: done() prints one line `BENCH_RESULT {json}`, as bench/wrk/event.lua's (bench/wrk/results.lua).
]]

local bit = require("bit")
local band, bxor, bor, rshift, lshift, tobit = bit.band, bit.bxor, bit.bor, bit.rshift, bit.lshift, bit.tobit

-- setup(), response() and done(): the report every bench script gives (bench/wrk/results.lua, beside this one).
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "results.lua")

-- Math.imul: the low 32 bits of a * b, in 16-bit halves so no product loses precision in a double.
local function imul(a, b)
  local al, ah = band(a, 0xffff), band(rshift(a, 16), 0xffff)
  local bl, bh = band(b, 0xffff), band(rshift(b, 16), 0xffff)
  return tobit(al * bl + lshift(tobit(ah * bl + al * bh), 16))
end

-- Unsigned value of a 32-bit pattern.
local function u32(x)
  x = tobit(x)
  if x < 0 then return x + 4294967296 end
  return x
end

local state = 0

-- bench/random.ts's mulberry32, step for step.
local function nextRandom()
  state = tobit(state + 0x6d2b79f5)
  local t = state
  t = imul(bxor(t, rshift(t, 15)), bor(t, 1))
  t = bxor(t, tobit(t + imul(bxor(t, rshift(t, 7)), bor(t, 61))))
  return u32(bxor(t, rshift(t, 14))) / 4294967296
end

local apiKey, population, newShare, skew, runTag
local path, bodyHead, newHead, bodyTail
local fresh = 0

function init(args)
  apiKey = args[1] or ""
  population = tonumber(args[2] or "1000000")
  newShare = tonumber(args[3] or "0.03")
  skew = tonumber(args[4] or "2")
  runTag = args[5] or "bench"
  state = tobit(tonumber(args[6] or "1") + (threadId or 0))
  path = wrk.path
  bodyHead = '{"user":{"id":"user-'
  newHead = '{"user":{"id":"new-' .. runTag .. '-' .. (threadId or 0) .. '-'
  bodyTail = '"},"value":1}'
end

function request()
  local headers = {
    ["Content-Type"] = "application/json",
    ["X-API-KEY"] = apiKey,
  }
  local isNew = nextRandom() < newShare
  local rank = math.min(population - 1, math.floor(population * nextRandom() ^ skew))
  if isNew then
    fresh = fresh + 1
    return wrk.format("POST", path, headers, newHead .. fresh .. bodyTail)
  end
  return wrk.format("POST", path, headers, bodyHead .. rank .. bodyTail)
end
