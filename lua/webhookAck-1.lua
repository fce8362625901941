--[[
  Takes deliveries out of an endpoint's queue once their first attempt is recorded in Postgres
  (src/engine/webhooks/queue.ts): acknowledged in the consumer group and deleted from the stream.

  KEYS[1] <prefix>:{whq:<endpoint>}:q    stream: the deliveries waiting, consumer group ARGV[1]

  ARGV[1] the consumer group's name
  ARGV    then the stream ids of the deliveries

  Returns the number of deliveries deleted.
]]
local queue = KEYS[1]
local group = ARGV[1]

local ids = {}
for i = 2, #ARGV do ids[#ids + 1] = ARGV[i] end
if #ids == 0 then return 0 end
redis.call('XACK', queue, group, unpack(ids))
return redis.call('XDEL', queue, unpack(ids))
