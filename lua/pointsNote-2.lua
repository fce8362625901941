--[[
  Notes the awards of drained entries for the `points.changed` of their windows
  (src/engine/webhooks/points-changed.ts): each member's latest entry, and when its window ends.
  A note of an earlier entry never replaces a later one's (two drainers side by side may write a
  batch twice, the later of them after the next batch's notes), and a window's end only moves
  later (ZADD GT): a member due at the end of one window and noted in the next is sent once, at
  the end of the next, with the latest state.

  KEYS[1] <prefix>:{p<N>}:pcw     hash member -> '<entry id, sortable>\t<ts>\t<awards JSON>'
  KEYS[2] <prefix>:{p<N>}:pcdue   zset member -> the end of its window (ms)

  ARGV    member, value (its sortable entry id first), the end of its window; repeated

  Returns the number of members whose entry was noted.
]]
local latest, due = KEYS[1], KEYS[2]

local noted = 0
for i = 1, #ARGV, 3 do
  local member, value = ARGV[i], ARGV[i + 1]
  local held = redis.call('HGET', latest, member)
  -- Values start with a fixed-width entry id: compared as strings, they compare as entries.
  if not held or held < value then
    redis.call('HSET', latest, member, value)
    noted = noted + 1
  end
  redis.call('ZADD', due, 'GT', ARGV[i + 2], member)
end
return noted
