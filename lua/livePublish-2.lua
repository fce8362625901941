--[[
  Publishes messages on a live topic (the workers' publisher, src/engine/live/topic-store.ts): each
  its next sequence number, kept in the topic's bounded history (for a client that resumes with
  `since`), and sent on the topic's shard channel to the api processes that subscribe to it (one
  SPUBLISH for all of them, one per line).

  KEYS[1] sequence   <prefix>:{lv:<tenant>:<hash>}:<topic>:s   string
  KEYS[2] history    <prefix>:{lv:<tenant>:<hash>}:<topic>:h   list, newest first

  ARGV[1] the shard channel   <prefix>:{lv:<tenant>:<hash>}:<topic>
  ARGV[2] now, ms (the service's clock)
  ARGV[3] messages the history keeps
  ARGV[4] ms the sequence and history are kept after the last message
  ARGV[5] the topic as a JSON string literal
  ARGV[6] the first message's type
  ARGV[7] its data, JSON
  ARGV[8], ARGV[9], ...   the next messages' types and data, in order

  Returns the last message's sequence number.
]]
local seqKey = KEYS[1]
local historyKey = KEYS[2]

--- @include "liveAdd"

local items = {}
for i = 6, #ARGV do items[#items + 1] = ARGV[i] end
return liveAdd(seqKey, historyKey, ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5], items)
