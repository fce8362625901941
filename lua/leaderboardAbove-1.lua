--[[
  A read of one shard of a board's run (docs/api.md, "Shards"): for each place asked, how many
  members of this ranking rank above it, in the order one ranking would give them all: a higher
  value, or the same value and a larger member (ZREVRANGE's order: members '<order>|<user id>'
  compare byte by byte, lua/leaderboardRank-8.lua). A user's rank on a sharded board is 1 plus the
  sum of these counts over its shards, their own shard's being their position there
  (src/redis/sharded-rankings.ts). Writes nothing.

  KEYS[1] ranking                <prefix>:{lb:<tenant>:<board>:<run>[:g<hash>][:s<n>]}:r   zset

  ARGV[1] this shard's index: the places of its own users are skipped (-1: none is)
  ARGV[2] the places, one a line: '<value> <shard> <member length>', the value as Redis gave it
          (ZSCORE), the shard the place's user is in, the length in bytes of its member
  ARGV[3] the places' members, one after the other

  The same two strings go to every shard of a read, so a read of n places over s shards sends s
  copies of two strings, not n × s arguments.

  Returns the count above each place of another shard, in the order asked.

  What it costs: the places of one value (asked one after the other, as a read sorted best first
  asks them) share its two counts, ZCOUNT above it and ZCOUNT of it; where members of this shard
  hold the value too, the places' positions among them are found together, the places taken
  largest member first: the tied members read a chunk at a time and walked once (a command for
  every 128 of them) when they are at most 64 for each place, else each place searched from the
  one before it, doubling the step then halving. A read of n users of distinct values costs two
  commands a user here; of tied values, fewer.
]]
local rankingKey = KEYS[1]

-- Whether member `a` is larger than `b`, byte by byte (as Redis orders equal scores; Lua's own
-- string comparison follows the locale).
local function larger(a, b)
  if a == b then return false end
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x > y end
  end
  return #a > #b
end

-- Tied members read at once, at most.
local CHUNK = 128

-- A member's order as two numbers, its first 15 digits and its next 6 (the members the placements
-- write start with 21 digits and a '|', src/domain/leaderboards/runs.ts orderOf): compared as
-- numbers they compare as their bytes do, a few operations where a byte at a time takes dozens.
-- Nil for a member of another form.
local ORDER = '^(' .. string.rep('%d', 15) .. ')(' .. string.rep('%d', 6) .. ')|'
local function orderOf(member)
  local hi, lo = string.match(member, ORDER)
  if hi then return tonumber(hi), tonumber(lo) end
  return nil, nil
end

-- Whether member `a` (its order ahi, alo) is larger than `b` (bhi, blo): by their orders when
-- both have one and they differ, else byte by byte.
local function ordered(a, ahi, alo, b, bhi, blo)
  if ahi and bhi then
    if ahi ~= bhi then return ahi > bhi end
    if alo ~= blo then return alo > blo end
  end
  return larger(a, b)
end

-- The members of a value, from position `above` (those above it) on: the one at `i` (from 0), the
-- largest first.
local function tied(above, i)
  return redis.call('ZREVRANGE', rankingKey, above + i, above + i)[1]
end

-- How many of the `equal` members holding a value (from position `above`) are larger than
-- `member` (its order hi, lo), knowing that the first `lo` are: searched doubling the step, then
-- halving.
local function searched(member, mhi, mlo, above, equal, lo)
  local function beyond(i)
    local t = tied(above, i)
    local thi, tlo = orderOf(t)
    return ordered(t, thi, tlo, member, mhi, mlo)
  end
  local hi = equal
  local step = 1
  while lo < hi do
    local probe = math.min(lo + step - 1, hi - 1)
    if beyond(probe) then
      lo = probe + 1
      step = step * 2
    else
      hi = probe
      break
    end
  end
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if beyond(mid) then lo = mid + 1 else hi = mid end
  end
  return lo
end

local own = ARGV[1]
local values, members, shards, his, los = {}, {}, {}, {}, {}
local at = 1
for score, shard, length in string.gmatch(ARGV[2], '(%S+) (%S+) (%d+)') do
  local n = #values + 1
  local member = string.sub(ARGV[3], at, at + tonumber(length) - 1)
  values[n], members[n], shards[n] = score, member, shard
  his[n], los[n] = orderOf(member)
  at = at + tonumber(length)
end

local counts = {}
local i = 1
while i <= #values do
  -- The places of one value asked one after the other, of other shards than this one.
  local value = values[i]
  local group = {}
  local j = i
  while j <= #values and values[j] == value do
    if shards[j] ~= own then group[#group + 1] = j end
    j = j + 1
  end
  if #group > 0 then
    local above = redis.call('ZCOUNT', rankingKey, '(' .. value, '+inf')
    local equal = redis.call('ZCOUNT', rankingKey, value, value)
    if equal == 0 then
      for _, g in ipairs(group) do counts[g] = above end
    else
      table.sort(group, function(a, b) return ordered(members[a], his[a], los[a], members[b], his[b], los[b]) end)
      local k = 0
      if equal <= 64 * #group then
        -- Walked once: `chunk` holds the tied members from position `base`, with their orders.
        local chunk, chi, clo, base = {}, {}, {}, 0
        for _, g in ipairs(group) do
          while k < equal do
            if k >= base + #chunk then
              base = k
              chunk = redis.call('ZREVRANGE', rankingKey, above + k, above + math.min(k + CHUNK, equal) - 1)
              for c = 1, #chunk do chi[c], clo[c] = orderOf(chunk[c]) end
            end
            local c = k - base + 1
            if ordered(chunk[c], chi[c], clo[c], members[g], his[g], los[g]) then k = k + 1 else break end
          end
          counts[g] = above + k
        end
      else
        for _, g in ipairs(group) do
          k = searched(members[g], his[g], los[g], above, equal, k)
          counts[g] = above + k
        end
      end
    end
  end
  i = j
end

local out = {}
for x = 1, #values do
  if shards[x] ~= own then out[#out + 1] = counts[x] end
end
return out
