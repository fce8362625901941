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
  argv, first        field/value pairs to set, in argv from index `first` on; when the last pair
                     is ('', '<n>'), a marker the api adds only when the identification sets an
                     attribute some live board breaks down by, it is not written, and the n pairs
                     before it are those attributes (src/engine/leaderboards/leave-groups.ts)
  iso                creation's ISO-8601 part when the caller has it already, else nil

  Returns 1 when the user was created, 0 when it existed; then, after a marker, the breakdown
  attributes whose value this changes on a user who existed, as JSON '["a:<key>","<old value>",...]'
  (old '' when it had none; nil when none changed): the user leaves the groups of their old values.
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
  local moved
  if hasFields then
    local last = #argv
    if argv[last - 1] == '' then
      -- The breakdown attributes' values before this write, to compare (rare: a marker).
      local n = tonumber(argv[last])
      last = last - 2
      if exists and n > 0 then
        local from, fields = last - 2 * n + 1, {}
        for i = from, last, 2 do fields[#fields + 1] = argv[i] end
        local old = redis.call('HMGET', userKey, unpack(fields))
        local changed = {}
        for k = 1, n do
          local was = old[k] or ''
          if was ~= argv[from + 2 * k - 1] then
            changed[#changed + 1] = fields[k]
            changed[#changed + 1] = was
          end
        end
        if #changed > 0 then moved = cjson.encode(changed) end
      end
    end
    redis.call('HSET', userKey, 'updated', nowIso, unpack(argv, first, last))
    if redis.call('HGET', userKey, 'sub') == '0' then redis.call('HDEL', userKey, 'email') end
  end
  return created, moved
end
