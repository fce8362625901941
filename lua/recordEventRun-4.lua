--[[
  A run of events of one user on one metric (a batch's items: src/engine/batches/process.ts), in
  one call: each event applied, in order, by the body of the event function it would have been
  sent to alone (lua/recordEventPlan-4.lua, or lua/recordEvent-4.lua for a metric without
  features), with the same keys and its own arguments; so each writes and answers exactly what
  its own call would have. A function of the event path's library only (src/redis/scripts.ts
  names those bodies recordEventPlanBody and recordEventBody).

  KEYS[1] user hash                 as both event functions' KEYS[1]
  KEYS[2] user-metric hash          as their KEYS[2]
  KEYS[3] the partition's slot (recordEventPlan) or the partition's user set (recordEvent)
  KEYS[4] partition event log       as their KEYS[4]
  ARGV[1] 'p' (recordEventPlan) or 'e' (recordEvent), then how many arguments each event has,
          comma-separated: 'p7,7,9'
  ARGV[2...] the events' arguments, one event's after another, each as that function's ARGV

  Returns a list: each event's answer in order, as its function answers (a processed event's
  string, or a replay's {2, ...}), up to and including the first other hand-back (nothing of that
  event changed; the events after it were not run: the api sends them again once it has done what
  the hand-back asks, as it would have before sending them one by one).
    {-18, answers}  an event's body raised an error (of Redis: what it wrote before the error
                    stays, as in its own call): the answers of the events before it, as above;
                    it and the events after it not run on
]]
local body = string.byte(ARGV[1], 1) == 112 and recordEventPlanBody or recordEventBody
local answers = {}
local at = 1
for count in string.gmatch(string.sub(ARGV[1], 2), '%d+') do
  local n = count + 0
  local args = {}
  for i = 1, n do args[i] = ARGV[at + i] end
  at = at + n
  local ok, answer = pcall(body, KEYS, args)
  if not ok then return {-18, answers} end
  answers[#answers + 1] = answer
  if type(answer) ~= 'string' and answer[1] ~= 2 then return answers end
end
return answers
