--[[
  Creates the user when new (subscribeToEmails defaults to true) and applies the fields of an
  identification. A user who does not subscribe to emails keeps no email (as Trophy: "if false,
  the email is not stored"). A new user's hash gets only 'id' and 'created': 'updated' absent
  means never updated since (the user view shows `created`), 'sub' absent means subscribed (only
  '0' unsubscribes). Every field written costs the event, and every field a hash holds costs each
  later lookup of an absent field in it (a listpack is scanned whole).

  userKey, usersKey  the user's hash and the user set of its partition
  exists             whether the user's hash exists (the caller has read it already)
  creation           '<now, ISO-8601, 24 characters><user id>', split only when needed
  argv, first        field/value pairs to set, in argv from index `first` on
  iso                creation's ISO-8601 part when the caller has it already, else nil

  Returns 1 when the user was created, 0 when it existed.
]]
local function writeUser(userKey, usersKey, exists, creation, argv, first, iso)
  local hasFields = #argv >= first
  if exists and not hasFields then return 0 end
  local nowIso = iso or string.sub(creation, 1, 24)
  local created = 0
  if not exists then
    local userId = string.sub(creation, 25)
    redis.call('HSET', userKey, 'id', userId, 'created', nowIso)
    redis.call('SADD', usersKey, userId)
    created = 1
  end
  if hasFields then
    redis.call('HSET', userKey, 'updated', nowIso, unpack(argv, first))
    if redis.call('HGET', userKey, 'sub') == '0' then redis.call('HDEL', userKey, 'email') end
  end
  return created
end
