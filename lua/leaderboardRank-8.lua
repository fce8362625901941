--[[
  Phase 2 of an event, one call per leaderboard run (and breakdown group) the event changed, on
  that run's own hash slot: puts the user's absolute value in the ranking (capped, or uncapped),
  so applying it twice changes nothing.

  Ranking: a sorted set whose score is the value and whose member is '<order>|<user id>', where
  order is a zero-padded number that is larger the earlier the value was reached: equal values
  then rank by who reached them first (ZREVRANGE returns equal scores in descending member order,
  so the member holds the complement of the time). The hash maps each user to their member.

  Capped: while the ranking holds fewer than the maximum, anyone enters; once full, a newcomer
  enters only by beating the lowest value, or by reaching it before the last who reached it (a
  tie goes to the earliest, whatever order the placements arrive in), whose holder then leaves. Values that go down stay. The
  falls counter counts every change that can take the lowest value of a full ranking down: a
  member's value going down, and a newcomer entering without pushing anyone out (the ranking was
  not full for this caller's maximum: while it fills, or after the maximum was raised, it may
  enter below the lowest value); leaderboardPrune counts the users it removes.

  KEYS[1] ranking                <prefix>:{lb:<tenant>:<board>:<run>[:<group>]}:r   zset
  KEYS[2] members                <prefix>:{...}:m                                   hash user -> member
  KEYS[3] the user's history     <prefix>:{...}:h:<user id>                         list, newest first
  KEYS[4] the user's awards      <prefix>:{...}:a:<user id>                         hash n -> awarded
          (points boards that repeat, or have a daily window: the value is the sum of the user's
          awards in the run, each recorded once by its number, so a repeated call adds nothing)
  KEYS[5] expiries               <prefix>:{...}:x                                   zset user -> ms (streak boards)
  KEYS[6] falls                  <prefix>:{...}:f                                   counter (above) of the
          api's entry gate (src/engine/leaderboards/rank-user.ts)
  KEYS[7] sequences              <prefix>:{...}:q                                   hash user -> the log
          entry id of the event whose value the member holds; in a breakdown group's ranking, also
          of the identification or event that moved a user out of the group (leaderboardLeave)
  KEYS[8] rank changes           <prefix>:{...}:s                                   hash: the run's counts of
          users who entered ('entered'), who moved to another rank by their own value ('moved'),
          and who were pushed out of a full capped ranking ('pushedOut'): the board's statistics
          (src/engine/leaderboards/stats.ts), counted as it moves

  Order: the placements of one user's events may arrive in another order than their phase 1 ran
  (two requests at once: their continuations await different things, or reach the board's node on
  a Cluster in another order). An absolute value (not an award sum) comes with its event's log
  entry id, which rises with phase 1 on the user's partition: a placement older than the one the
  member holds changes nothing, so the board never goes back to an earlier value. A user who
  left a breakdown group because their attribute changed (leaderboardLeave-6.lua) holds the
  change's log entry id there: a placement of an event before it (which read the old value, and
  may arrive late: phase 2 runs after phase 1, and the log drainer places a dead process's events
  again) changes nothing either, also an award sum's, which carries its event's id for this
  only. A user taken off every ranking by an exclusion (src/engine/fairplay/exclude.ts) holds
  the exclusion's log entry id in each ranking's sequences the same way, on every ranking: a
  placement of an event from before the exclusion that arrives after the removal changes nothing
  (checked only for a user who is not a member: one HGET a newcomer pays). An award sum is reached
  when its latest award was made, whatever order the awards arrive in: its member keeps the latest
  order of those placed (the smallest).

  ARGV[1] user id
  ARGV[2] value (a decimal string)
  ARGV[3] order: when the value was reached, as a 21-digit complement of its log entry id
          (src/domain/leaderboards/runs.ts orderOf)
  ARGV[4] maximum participants (a negative one read as its absolute value). An uncapped board's is
          2^53 - 1, which no ranking reaches: never full, anyone enters, the threshold stays 0 (and
          the ranking's size is not read)
  ARGV[5] '<ms>': the event's time, for the history
  ARGV[6] streak boards: when the user's streak is lost if nothing happens (ms), recorded for
          leaderboardPrune while the user is on the ranking; '' otherwise. A streak placement
          first removes the members whose streak is lost by ARGV[5]
  ARGV[7] the event's log entry id ('<ms>-<n>'), or '' for a placement outside that order (a value
          worked out from the state at once). A sum of awards, whose order does not matter, comes
          with it only to be checked against a departure (above). '=' before it: a move of a
          member only (a void's, in a breakdown group it read the user in: src/engine/fairplay/
          void.ts): a user the ranking does not hold now (they left the group since, or were
          pushed out) is not placed, and their awards are not recorded
  ARGV[8...] award number / points awarded pairs: the value is then the sum of the awards (ARGV[2]
          is ignored). The hash keeps the latest awards by number; past 200, all but the latest 100
          fold into its field 'b' and 'w' becomes the highest number folded, so an award placed
          again after that (numbers at or below 'w') adds nothing either.

  A league cohort whose user was moved to another cohort of the run (lua/leagueDepart-6.lua)
  holds '>' and that cohort in their sequences field: it places them no more, and answers the
  cohort ('<tier>.<n>') as a fifth element, where the caller places them instead. '<' before
  ARGV[7]: a move's placement of what the user held (src/engine/leaderboards/league-relocate.ts)
  into a cohort they left before and come back to (moved out by one outcome, back by the next):
  the mark goes and they are placed.

  Returns {rank, previousRank, threshold, falls}: rank and previousRank 0 when off the ranking
  (both the current rank for a placement older than the member's);
  threshold the value needed to enter now (the lowest value when full, else 0); when full, the
  falls counter after this call ('' otherwise). Threshold and counter are read together: while the
  counter stays the same, the threshold can only rise.
]]
local rankingKey = KEYS[1]
local membersKey = KEYS[2]
local historyKey = KEYS[3]
local awardsKey = KEYS[4]
local expiryKey = KEYS[5]
local fallsKey = KEYS[6]
local sequencesKey = KEYS[7]
local statsKey = KEYS[8]

local userId = ARGV[1]
local value = ARGV[2]
local order = ARGV[3]
local max = tonumber(ARGV[4])
if max < 0 then max = -max end
local uncapped = max >= 9007199254740991
local at = ARGV[5]
local expiry = ARGV[6]
local seq = ARGV[7]
local membersOnly = string.sub(seq, 1, 1) == '='
if membersOnly then seq = string.sub(seq, 2) end
local returning = string.sub(seq, 1, 1) == '<'
if returning then seq = string.sub(seq, 2) end

--- @include "pruneLost"
--- @include "streamOrder"

-- A streak board first loses the streaks lost by the event's time: they hold no place in its
-- ranks, nor in its cap (lua/includes/pruneLost.lua).
if expiry ~= '' then pruneLost(rankingKey, membersKey, expiryKey, fallsKey, sequencesKey, at) end

-- The value needed to enter now and the falls counter, when the ranking is full ('0', '' else);
-- `size` and `lowest` when already known.
local function entry(size, lowest)
  if uncapped or (size or redis.call('ZCARD', rankingKey)) < max then return '0', '' end
  return (lowest or redis.call('ZRANGE', rankingKey, '0', '0', 'WITHSCORES'))[2], redis.call('GET', fallsKey) or '0'
end


local old = redis.call('HGET', membersKey, userId)
local sum = #ARGV > 7
if not old then
  local held = redis.call('HGET', sequencesKey, userId)
  -- A league's user moved to another cohort of this run by the outcome of the run before
  -- (lua/leagueDepart-6.lua): this cohort takes them no more; the answer names their cohort.
  if held and string.sub(held, 1, 1) == '>' then
    if not returning then
      local threshold, falls = entry(nil, nil)
      return {0, 0, threshold, falls, string.match(held, '^>([^|]*)')}
    end
    redis.call('HDEL', sequencesKey, userId)
    held = nil
  end
  -- Left the group since this event read its value, or excluded since the event: a placement from
  -- before the departure changes nothing. A move of a member only: nothing for a user not held.
  if membersOnly or (held and seq ~= '' and before(seq, held)) then
    local threshold, falls = entry(nil, nil)
    return {0, 0, threshold, falls}
  end
end

if sum then
  -- Awards at or below the watermark 'w' are already in the folded sum 'b'.
  local w = tonumber(redis.call('HGET', awardsKey, 'w') or '0')
  local new = {}
  for i = 8, #ARGV, 2 do
    if tonumber(ARGV[i]) > w then
      new[#new + 1] = ARGV[i]
      new[#new + 1] = ARGV[i + 1]
    end
  end
  if #new > 0 then redis.call('HSET', awardsKey, unpack(new)) end
  local all = redis.call('HGETALL', awardsKey)
  local sum, numbers = 0, {}
  for i = 1, #all, 2 do
    local field = all[i]
    if field == 'b' then sum = sum + all[i + 1]
    elseif field ~= 'w' then
      sum = sum + all[i + 1]
      numbers[#numbers + 1] = tonumber(field)
    end
  end
  -- Bounded: past 200 awards, all but the latest 100 fold into the sum (a board that never
  -- repeats, or a long run, would otherwise keep every award).
  if #numbers > 200 then
    table.sort(numbers)
    local folded, fields = 0, {}
    for i = 1, #numbers - 100 do
      local n = string.format('%d', numbers[i])
      fields[#fields + 1] = n
    end
    local values = redis.call('HMGET', awardsKey, unpack(fields))
    for _, v in ipairs(values) do folded = folded + v end
    redis.call('HDEL', awardsKey, unpack(fields))
    redis.call('HINCRBY', awardsKey, 'b', string.format('%d', folded))
    redis.call('HSET', awardsKey, 'w', fields[#fields])
  end
  value = string.format('%d', sum)
end

local heldRank = old and redis.call('ZREVRANK', rankingKey, old)
-- A member the ranking no longer holds (its keys deleted one by one while a tenant is erased):
-- the user is placed anew, never an error.
if old and not heldRank then
  redis.call('HDEL', membersKey, userId)
  old = false
end

local previousRank, previousValue = 0, nil
if old then
  previousRank = heldRank + 1
  -- A later event of this user placed already: its value stands.
  if seq ~= '' and not sum then
    local held = redis.call('HGET', sequencesKey, userId)
    if held and before(seq, held) then
      local threshold, falls = entry(nil, nil)
      return {previousRank, previousRank, threshold, falls}
    end
  end
  previousValue = redis.call('ZSCORE', rankingKey, old)
end

local member = order .. '|' .. userId
local entered = true
local size -- the ranking's size after this call, when known
local lowest -- the lowest entry, when read
if old then
  if tonumber(previousValue) ~= tonumber(value) then
    if sum then
      -- An award placed late: the sum was reached when the latest of the awards was made.
      local held = string.match(old, '^([^|]*)|')
      if held and #held == #order and held < order then member = old end
    end
    if tonumber(value) < tonumber(previousValue) then redis.call('INCR', fallsKey) end
    redis.call('ZREM', rankingKey, old)
    redis.call('ZADD', rankingKey, value, member)
    redis.call('HSET', membersKey, userId, member)
  else
    member = old
  end
else
  if not uncapped then size = redis.call('ZCARD', rankingKey) end
  if uncapped or size < max then
    redis.call('ZADD', rankingKey, value, member)
    redis.call('HSET', membersKey, userId, member)
    redis.call('INCR', fallsKey)
    if size then size = size + 1 end
  else
    lowest = redis.call('ZRANGE', rankingKey, '0', '0', 'WITHSCORES')
    -- The lowest member is the last to reach the lowest value (members of one value sort by their
    -- order, the earliest last): a newcomer who reached that value before them takes their place,
    -- so who holds a full ranking does not hang on the order placements arrive in (phase 2, a
    -- pass placing several users at once, a replay).
    local lowestOrder = string.match(lowest[1], '^([^|]*)|')
    if tonumber(value) > tonumber(lowest[2])
      or (tonumber(value) == tonumber(lowest[2]) and lowestOrder and #lowestOrder == #order and member > lowest[1]) then
      local leaving = string.match(lowest[1], '^[^|]*|(.*)$')
      redis.call('ZREM', rankingKey, lowest[1])
      redis.call('HINCRBY', statsKey, 'pushedOut', 1)
      redis.call('HDEL', membersKey, leaving)
      redis.call('HDEL', sequencesKey, leaving)
      if expiry ~= '' then redis.call('ZREM', expiryKey, leaving) end
      redis.call('ZADD', rankingKey, value, member)
      redis.call('HSET', membersKey, userId, member)
      lowest = nil
    else
      entered = false
    end
  end
end

local rank = 0
if entered then
  rank = redis.call('ZREVRANK', rankingKey, member) + 1
  if seq ~= '' and not sum then redis.call('HSET', sequencesKey, userId, seq) end
end
local threshold, falls = entry(size, lowest)
if rank ~= previousRank or (entered and tonumber(previousValue) ~= tonumber(value)) then
  local length = redis.call('LPUSH', historyKey, string.format('%s|%d|%d|%s|%s', at, previousRank, rank, previousValue or '', entered and value or ''))
  if length > 100 then redis.call('LTRIM', historyKey, '0', '99') end
end
if rank ~= previousRank and rank > 0 then
  redis.call('HINCRBY', statsKey, previousRank == 0 and 'entered' or 'moved', 1)
end
if expiry ~= '' and rank > 0 then redis.call('ZADD', expiryKey, expiry, userId) end
return {rank, previousRank, threshold, falls}
