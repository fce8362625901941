--[[
  Deletes one configuration entity and its unique value, and bumps the configuration version.

  KEYS[1] entity hash            <prefix>:{cfg}:<kind>
  KEYS[2] unique index           <prefix>:{cfg}:<kind>:unique
  KEYS[3] configuration version  <prefix>:{cfg}:version

  ARGV[1] entity id
  ARGV[2] name of the unique field inside the JSON; '' when the kind has none

  Returns the new configuration version, or -4 when the id does not exist.
]]
local entities = KEYS[1]
local uniques = KEYS[2]
local versionKey = KEYS[3]

local id = ARGV[1]
local uniqueField = ARGV[2]

local old = redis.call('HGET', entities, id)
if not old then return -4 end
if uniqueField ~= '' then
  local previous = cjson.decode(old)[uniqueField]
  if type(previous) == 'string' and redis.call('HGET', uniques, previous) == id then
    redis.call('HDEL', uniques, previous)
  end
end
redis.call('HDEL', entities, id)
return redis.call('INCR', versionKey)
