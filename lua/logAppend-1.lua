--[[
  Appends one entry to a partition's event log under an id unique across the installation
  (lua/includes/logAdd.lua): what the workers log themselves (a leaderboard run finalised,
  src/engine/leaderboards/finalised.ts).

  KEYS[1] partition event log    <slot>log

  ARGV[1] the entry's kind
  ARGV[2] its body (JSON)

  Returns the entry's id.
]]
--- @include "logAdd"

return logAdd(KEYS[1], ARGV[1], ARGV[2])
