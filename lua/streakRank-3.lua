--[[
  Records a streak extension in the tenant's streak rankings (their own hash slot), for the
  log-drain worker (extensions travel in the event log) and a restore: the user's current and
  longest length and when the current one expires. Values
  are absolute, so running it twice changes nothing. Scores are the length plus a fraction that
  is larger the earlier the length was reached, so equal lengths rank by who reached them first;
  the longest only ever grows (ZADD GT), so reaching an equal length later keeps the earlier time.

  KEYS[1] active lengths      <prefix>:{st:<tenant>}:active    zset user -> current length
  KEYS[2] longest lengths     <prefix>:{st:<tenant>}:longest   zset user -> longest length
  KEYS[3] expiries            <prefix>:{st:<tenant>}:expiry    zset user -> ms the streak is lost

  ARGV[1] user id
  ARGV[2] score of the current length
  ARGV[3] score of the longest length
  ARGV[4] expiry, ms since the epoch

  Returns 1.
]]
local activeKey = KEYS[1]
local longestKey = KEYS[2]
local expiryKey = KEYS[3]

local userId = ARGV[1]

redis.call('ZADD', activeKey, ARGV[2], userId)
redis.call('ZADD', longestKey, 'GT', ARGV[3], userId)
redis.call('ZADD', expiryKey, ARGV[4], userId)
return 1
