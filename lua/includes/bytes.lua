--[[
  The character codes the scripts compare flags with. string.byte answers a character's code, and
  comparing that number costs less than cutting the character out as a string to compare.
]]
local BYTE_ZERO = 48 -- '0'
local BYTE_ONE = 49 -- '1'
