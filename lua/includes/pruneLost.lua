--[[
  pruneLost(rankingKey, membersKey, expiryKey, fallsKey, sequencesKey, now) -> how many left
  A streak board's run loses the users whose streak is lost by `now` (ms): each placement records
  when the user's streak is lost if nothing happens, and their next extension places them again.
  Leaving lowers the ranking's entry threshold, like a value going down: the falls counter counts
  it (lua/leaderboardRank-8.lua). Run before a board is read and before a streak placement, so
  neither the ranks nor the cap count streaks that are gone.
]]
local function pruneLost(rankingKey, membersKey, expiryKey, fallsKey, sequencesKey, now)
  local lost = redis.call('ZRANGEBYSCORE', expiryKey, '-inf', now)
  local left = 0
  for _, userId in ipairs(lost) do
    local member = redis.call('HGET', membersKey, userId)
    if member then
      redis.call('ZREM', rankingKey, member)
      redis.call('HDEL', membersKey, userId)
      redis.call('HDEL', sequencesKey, userId)
      left = left + 1
    end
    redis.call('ZREM', expiryKey, userId)
  end
  -- Only a member leaving can lower the threshold: an expiry of a user already pushed out does not.
  if left > 0 then redis.call('INCR', fallsKey) end
  return left
end
