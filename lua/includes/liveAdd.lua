--[[
  Adds one message to a live topic (src/engine/live/): the topic's next sequence number, the
  message kept in its bounded history, and sent on its shard channel. Every key and the channel
  share the topic's hash tag.

  seqKey      string: the topic's last sequence number
  historyKey  list: the topic's latest messages, newest first (JSON, each with its seq)
  channel     the shard channel (SPUBLISH)
  now         ms (the service's clock): a topic without a sequence (new, or its keys expired)
              starts at now * 1000, above any number it had before, so a sequence never goes back
  keep        messages the history keeps
  ttl         ms the sequence and the history are kept after the last message
  topicJson   the topic as a JSON string literal
  kind        the message's type
  data        the message's data as JSON
]]
local function liveAdd(seqKey, historyKey, channel, now, keep, ttl, topicJson, kind, data)
  local last = tonumber(redis.call('GET', seqKey) or '0')
  local seq = last + 1
  if last == 0 then seq = now * 1000 end
  redis.call('SET', seqKey, string.format('%.0f', seq), 'PX', ttl)
  local message = '{"topic":' .. topicJson .. ',"seq":' .. string.format('%.0f', seq) .. ',"type":"' .. kind .. '","data":' .. data .. '}'
  redis.call('LPUSH', historyKey, message)
  redis.call('LTRIM', historyKey, 0, keep - 1)
  redis.call('PEXPIRE', historyKey, ttl)
  redis.call('SPUBLISH', channel, message)
  return seq
end
