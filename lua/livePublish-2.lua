--[[
  Publishes one message on a live topic (the workers' publisher, src/engine/live/topic-store.ts): its
  next sequence number, kept in the topic's bounded history (for a client that resumes with
  `since`) and sent on the topic's shard channel to the api processes that subscribe to it.

  KEYS[1] sequence   <prefix>:{lv:<tenant>:<hash>}:<topic>:s   string
  KEYS[2] history    <prefix>:{lv:<tenant>:<hash>}:<topic>:h   list, newest first

  ARGV[1] the shard channel   <prefix>:{lv:<tenant>:<hash>}:<topic>
  ARGV[2] now, ms (the service's clock)
  ARGV[3] messages the history keeps
  ARGV[4] ms the sequence and history are kept after the last message
  ARGV[5] the topic as a JSON string literal
  ARGV[6] the message's type
  ARGV[7] its data, JSON

  Returns the message's sequence number.
]]
local seqKey = KEYS[1]
local historyKey = KEYS[2]

--- @include "liveAdd"

return liveAdd(seqKey, historyKey, ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5], ARGV[6], ARGV[7])
