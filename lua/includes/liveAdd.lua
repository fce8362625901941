--[[
  Adds messages to a live topic (src/engine/live/): each the topic's next sequence number, kept in
  its bounded history, and sent on its shard channel, all of them in one SPUBLISH, one per line
  (JSON holds no raw newline; the api processes split them: src/engine/live/fanout.ts). Every key
  and the channel share the topic's hash tag.

  seqKey      string: the topic's last sequence number
  historyKey  list: the topic's latest messages, newest first (JSON, each with its seq)
  channel     the shard channel (SPUBLISH)
  now         ms (the service's clock): a topic without a sequence (new, or its keys expired)
              starts at now * 1000, above any number it had before, so a sequence never goes back
  keep        messages the history keeps
  ttl         ms the sequence and the history are kept after the last message
  topicJson   the topic as a JSON string literal
  items       the messages in order: { type, data as JSON, type, data, ... }, one message at least

  Returns the last message's sequence number.
]]
local function liveAdd(seqKey, historyKey, channel, now, keep, ttl, topicJson, items)
  local last = tonumber(redis.call('GET', seqKey) or '0')
  local seq = last
  if last == 0 then seq = now * 1000 - 1 end
  local messages = {}
  for i = 1, #items, 2 do
    seq = seq + 1
    messages[#messages + 1] = '{"topic":' .. topicJson .. ',"seq":' .. string.format('%.0f', seq) .. ',"type":"' .. items[i] .. '","data":' .. items[i + 1] .. '}'
  end
  redis.call('SET', seqKey, string.format('%.0f', seq), 'PX', ttl)
  redis.call('LPUSH', historyKey, unpack(messages))
  redis.call('LTRIM', historyKey, 0, keep - 1)
  redis.call('PEXPIRE', historyKey, ttl)
  redis.call('SPUBLISH', channel, table.concat(messages, '\n'))
  return seq
end
