--[[
  States again, with the ranks on the whole run, the history entry a placement on one shard of a
  sharded board wrote with its ranks in that shard (src/engine/leaderboards/rank-user.ts): a
  compare-and-set on that entry. The placement's entry is the newest one of its time holding the
  shard's ranks it answered and not yet stated again (an entry stated again carries a sixth field,
  'r', that src/domain/leaderboards/rank-history.ts does not read). Two placements of one user in
  the same millisecond each find their own, whatever order their rewrites come in; an entry that
  is gone (a hundred newer ones trimmed it) is left.

  KEYS[1] the user's history in their shard   <prefix>:{...}:h:<user id>   list, newest first,
          '<ms>|<previous rank>|<rank>|<previous value>|<value>' (lua/leaderboardRank-8.lua)

  ARGV[1] '<ms>': the placement's time
  ARGV[2], ARGV[3] the previous rank and the rank the placement answered in its shard
  ARGV[4], ARGV[5] the previous rank and the rank on the whole run

  Returns 1 when an entry was stated again, 0 when none was found.
]]
local history = KEYS[1]
local head = ARGV[1] .. '|' .. ARGV[2] .. '|' .. ARGV[3] .. '|'
local entries = redis.call('LRANGE', history, '0', '-1')
for i, entry in ipairs(entries) do
  if string.sub(entry, 1, #head) == head then
    local tail = string.sub(entry, #head + 1)
    -- '<previous value>|<value>' only: not stated again yet.
    local _, bars = string.gsub(tail, '|', '')
    if bars == 1 then
      redis.call('LSET', history, i - 1, ARGV[1] .. '|' .. ARGV[4] .. '|' .. ARGV[5] .. '|' .. tail .. '|r')
      return 1
    end
  end
end
return 0
