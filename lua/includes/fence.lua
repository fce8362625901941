--[[
  An erasure's fence (src/engine/erasure/erase.ts): an erasure of a user with batch chunks queued in
  their partition keeps, in the partition's 'fences' hash and under the user hash's name, the id
  of the queue's last chunk then; the items of chunks up to it were accepted before the erasure,
  and are dropped when they come to be applied (the user is not made again from them). The
  workers' pass deletes the fence once the queue holds none of those chunks, and only then says
  the erasure is done (src/engine/erasure/pass.ts).

  fenced(logKey, userKey, accepted) -> whether an item of the chunk `accepted` (its id in the
                                       partition's batch queue) is fenced out; the fences hash is
                                       named from the partition's log key ('<slot>log')
]]
--- @include "streamOrder"
local function fenced(logKey, userKey, accepted)
  local fence = redis.call('HGET', string.sub(logKey, 1, -4) .. 'fences', userKey)
  return fence ~= false and not before(fence, accepted)
end
