--[[
  Completing achievements: at most once per user (HSETNX of the completion field in the user
  hash), counted per partition and tenant, cascading to composites (the plan lists them
  prerequisites first, so one pass suffices).

  A plan entry (decoded from msgpack): id, cf (completion field 'c:<id>'), ua (user-attribute
  filter, flat {field, value, ...} of the user hash, or nil), r (composites: the prerequisites'
  completion fields).

  attributesMatch(userKey, ua, pending)  whether the user's attributes match; `pending` holds the
                                          request's own field/value pairs, not yet written
  complete(userKey, countsKey, entry, stamp, completed)  true when completed now; appends its id
  cascade(userKey, countsKey, composites, stamp, completed)
]]
local function attributesMatch(userKey, ua, pending)
  if not ua then return true end
  local fields = {}
  for i = 1, #ua, 2 do fields[#fields + 1] = ua[i] end
  local stored = redis.call('HMGET', userKey, unpack(fields))
  for i = 1, #fields do
    local actual = (pending and pending[fields[i]]) or stored[i]
    if actual ~= ua[i * 2] then return false end
  end
  return true
end

local function complete(userKey, countsKey, entry, stamp, completed)
  if not attributesMatch(userKey, entry.ua, nil) then return false end
  if redis.call('HSETNX', userKey, entry.cf, stamp) == 0 then return false end
  redis.call('HINCRBY', countsKey, entry.id, '1')
  completed[#completed + 1] = entry.id
  return true
end

local function cascade(userKey, countsKey, composites, stamp, completed)
  if not composites then return end
  for _, c in ipairs(composites) do
    local have = redis.call('HMGET', userKey, c.cf, unpack(c.r))
    if not have[1] then
      local all = true
      for i = 2, #have do
        if not have[i] then all = false break end
      end
      if all then complete(userKey, countsKey, c, stamp, completed) end
    end
  end
end
