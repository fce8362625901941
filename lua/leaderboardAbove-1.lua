--[[
  A read of one shard of a board's run (docs/api.md, "Shards"): for each place asked, how many
  members of this ranking rank above it, in the order one ranking would give them all: a higher
  value, or the same value and a larger member (ZREVRANGE's order: members '<order>|<user id>'
  compare byte by byte, lua/leaderboardRank-8.lua). A user's rank on a sharded board is 1 plus the
  sum of these counts over its shards (src/redis/sharded-rankings.ts). Writes nothing.

  KEYS[1] ranking                <prefix>:{lb:<tenant>:<board>:<run>[:g<hash>][:s<n>]}:r   zset

  ARGV[1], ARGV[2], ARGV[3], ...  value / member / own triples: the value as Redis gave it
          (ZSCORE), the member as the user's own shard holds it, and '1' when this ranking is that
          shard ('0' otherwise)

  Returns the count above each place asked, in the order asked; -1 for a place asked of its own
  shard whose member is gone: a placement of the user replaced it since it was read (its new
  member, above the old value, would count as one above the user).
]]
local rankingKey = KEYS[1]

-- Whether member `a` is larger than `b`, byte by byte (as Redis orders equal scores; Lua's own
-- string comparison follows the locale).
local function larger(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x > y end
  end
  return #a > #b
end

local out = {}
for i = 1, #ARGV, 3 do
  local score, member = ARGV[i], ARGV[i + 1]
  local own = redis.call('ZREVRANK', rankingKey, member)
  if own then
    out[#out + 1] = own
  elseif ARGV[i + 2] == '1' then
    out[#out + 1] = -1
  else
    local above = redis.call('ZCOUNT', rankingKey, '(' .. score, '+inf')
    local equal = redis.call('ZCOUNT', rankingKey, score, score)
    -- The members of the same value sit at positions above .. above + equal - 1 (largest member
    -- first): the larger ones than `member` come first.
    local lo, hi = 0, equal
    while lo < hi do
      local mid = math.floor((lo + hi) / 2)
      local at = redis.call('ZREVRANGE', rankingKey, above + mid, above + mid)[1]
      if larger(at, member) then lo = mid + 1 else hi = mid end
    end
    out[#out + 1] = above + lo
  end
end
return out
