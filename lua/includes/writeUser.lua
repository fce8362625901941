--[[
  Creates the user when new (subscribeToEmails defaults to true) and applies the fields of an
  identification. A user who does not subscribe to emails keeps no email (as Trophy: "if false,
  the email is not stored").

  userKey, usersKey  the user's hash and the user set of its partition
  userId, nowIso     the user's id and the time of the change
  exists             whether the user's hash exists (the caller has read it already)
  argv, first        field/value pairs to set, in argv from index `first` on

  Returns 1 when the user was created, 0 when it existed.
]]
local function writeUser(userKey, usersKey, userId, nowIso, exists, argv, first)
  local created = 0
  if not exists then
    redis.call('HSET', userKey, 'id', userId, 'created', nowIso, 'updated', nowIso, 'sub', '1')
    redis.call('SADD', usersKey, userId)
    created = 1
  end
  if #argv >= first then
    redis.call('HSET', userKey, 'updated', nowIso, unpack(argv, first))
    if redis.call('HGET', userKey, 'sub') == '0' then redis.call('HDEL', userKey, 'email') end
  end
  return created
end
