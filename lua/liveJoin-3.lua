--[[
  An api process takes up a live topic for its sockets (src/engine/live/fanout.ts), or keeps it:
  marks the topic wanted for ARGV[5] ms, and answers its sequence and the history after a client's
  `since`.

  A topic nobody wanted until now (no want marker) may have had changes the publisher skipped (it
  publishes only what is wanted): it gets a `resync` message first, so a client that resumes from
  before it is told to read the state again rather than miss them silently.

  KEYS[1] sequence   <prefix>:{lv:<tenant>:<hash>}:<topic>:s   string
  KEYS[2] history    <prefix>:{lv:<tenant>:<hash>}:<topic>:h   list, newest first
  KEYS[3] wanted     <prefix>:{lv:<tenant>:<hash>}:<topic>:w   string, expires

  ARGV[1] the shard channel
  ARGV[2] now, ms (the service's clock)
  ARGV[3] messages the history keeps
  ARGV[4] ms the sequence and history are kept after the last message
  ARGV[5] ms the topic stays wanted
  ARGV[6] the topic as a JSON string literal
  ARGV[7] since: answer the history's messages after this sequence number; '' for none

  Returns {sequence, messages...}: the topic's last sequence number and, with `since`, the
  history's messages after it, oldest first.
]]
local seqKey = KEYS[1]
local historyKey = KEYS[2]
local wantKey = KEYS[3]

local channel = ARGV[1]
local now = tonumber(ARGV[2])
local keep = tonumber(ARGV[3])
local ttl = tonumber(ARGV[4])
local wantMs = ARGV[5]
local topicJson = ARGV[6]
local since = tonumber(ARGV[7])

--- @include "liveAdd"

if redis.call('SET', wantKey, '1', 'PX', wantMs, 'NX') then
  liveAdd(seqKey, historyKey, channel, now, keep, ttl, topicJson, { 'resync', 'null' })
else
  redis.call('PEXPIRE', wantKey, wantMs)
  redis.call('PEXPIRE', seqKey, ttl)
  redis.call('PEXPIRE', historyKey, ttl)
end
local out = { redis.call('GET', seqKey) or '0' }
if since ~= nil then
  local history = redis.call('LRANGE', historyKey, 0, -1)
  for i = #history, 1, -1 do
    local seq = tonumber(string.match(history[i], '"seq":(%d+)'))
    if seq ~= nil and seq > since then out[#out + 1] = history[i] end
  end
end
return out
