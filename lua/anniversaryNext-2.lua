--[[
  Notes a user's next anniversary, as the api worked it out on the user's calendar
  (src/engine/achievements/anniversaries.ts): the date every event compares its day with, the
  anchor it was counted from, and when the workers look at the user next. Nothing for a user who
  is gone (their member leaves the due set), nor when another process noted one since the api read
  it (its look at the user was the later one).

  KEYS[1] user hash                     <slot>user:<tenant>:<uid>
  KEYS[2] the partition's anniversary due set  <slot>anndue   '<tenant>|<uid>' -> when to look (ms)

  ARGV[1] the member '<tenant>|<uid>'
  ARGV[2] the next anniversary date (YYYY-MM-DD), or '~' when none is left
  ARGV[3] the anchor: the local day of the user's creation (YYYY-MM-DD)
  ARGV[4] when the workers look at the user next (ms), or '' for never (none left)
  ARGV[5] the next anniversary as the api read it ('an'; '' when absent)

  Returns 1; 0 for a user who does not exist; -14 when 'an' is no longer what the api read: nothing
  written.
]]
local userKey = KEYS[1]
local dueKey = KEYS[2]

local member = ARGV[1]
local coming = ARGV[2]
local anchor = ARGV[3]
local look = ARGV[4]
local read = ARGV[5]

if redis.call('HEXISTS', userKey, 'id') == 0 then
  redis.call('ZREM', dueKey, member)
  return 0
end
if (redis.call('HGET', userKey, 'an') or '') ~= read then return -14 end
redis.call('HSET', userKey, 'an', coming, 'an:d', anchor)
if look == '' then redis.call('ZREM', dueKey, member) else redis.call('ZADD', dueKey, look, member) end
return 1
