--[[
  Starts or ends a user's exclusion from the rankings (src/engine/fairplay/exclude.ts; docs/api.md,
  "Fair play: excluding a user"), on the user's partition: the user hash's 'x' field, which every
  event script reads with the user's other fields (an excluded user's event counts toward their
  own totals, streak, achievements and points, and is placed on no ranking), and an 'excluded' or
  'included' entry appended to the log, which the webhooks and live updates read and a restore
  replays. An event of the user runs wholly before this script (its placements are ordered before
  the exclusion's entry: the removal that follows takes them off, or refuses them when they arrive
  later) or wholly after it (it is placed nowhere).

  KEYS[1] user hash              <slot>user:<tenant>:<uid>    x -> '<entry id>|<ms>|<reason>'
  KEYS[2] partition event log    <slot>log

  ARGV[1] '1' to exclude, '0' to end the exclusion
  ARGV[2] the log entry (JSON)
  ARGV[3] excluding: '<ms>|<reason>', what 'x' keeps after the entry's id
  ARGV[4] excluding: the entry id the removal orders the user's placements by, when it is given
          (a restore replays the log: the original entry's id); '' for the new entry's own

  Returns {entry id, 'x' as written ('' when ended)}; {0, 'x' as it stands ('' when not
  excluded)} when the user already was in that state (nothing changed); {-4} for an unknown user
  (nothing changed).
]]
local userKey = KEYS[1]
local logKey = KEYS[2]

local exclude = ARGV[1] == '1'
local entry = ARGV[2]

--- @include "logAdd"

if redis.call('EXISTS', userKey) == 0 then return {-4} end
local held = redis.call('HGET', userKey, 'x')
if exclude then
  if held then return {0, held} end
  local id = logAdd(logKey, 'excluded', entry)
  local seq = ARGV[4] ~= '' and ARGV[4] or id
  local value = seq .. '|' .. ARGV[3]
  redis.call('HSET', userKey, 'x', value)
  return {id, value}
end
if not held then return {0, ''} end
redis.call('HDEL', userKey, 'x')
return {logAdd(logKey, 'included', entry), ''}
