--[[
  Creates or replaces one configuration entity, keeping its unique value (a metric's key, a
  tenant's customer id, an API key's hash) unique, and bumps the configuration version.

  KEYS[1] entity hash            <prefix>:{cfg}:<kind>           id -> JSON
  KEYS[2] unique index           <prefix>:{cfg}:<kind>:unique    unique value -> id
  KEYS[3] configuration version  <prefix>:{cfg}:version

  ARGV[1] mode: 'create' or 'update'
  ARGV[2] entity id
  ARGV[3] entity JSON
  ARGV[4] the entity's unique value; '' when the kind has none
  ARGV[5] name of the unique field inside the JSON; '' when the kind has none

  Returns the new configuration version, or
    -3  mode 'create' and the id exists
    -4  mode 'update' and the id does not exist
    -5  the unique value belongs to another entity
]]
local entities = KEYS[1]
local uniques = KEYS[2]
local versionKey = KEYS[3]

local mode = ARGV[1]
local id = ARGV[2]
local json = ARGV[3]
local unique = ARGV[4]
local uniqueField = ARGV[5]

local old = redis.call('HGET', entities, id)
if mode == 'create' and old then return -3 end
if mode == 'update' and not old then return -4 end

if unique ~= '' then
  local owner = redis.call('HGET', uniques, unique)
  if owner and owner ~= id then return -5 end
end

if old and uniqueField ~= '' then
  local previous = cjson.decode(old)[uniqueField]
  if type(previous) == 'string' and previous ~= unique then redis.call('HDEL', uniques, previous) end
end

redis.call('HSET', entities, id, json)
if unique ~= '' then redis.call('HSET', uniques, unique, id) end
return redis.call('INCR', versionKey)
