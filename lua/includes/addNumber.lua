--[[
  Adds a value to a numeric hash field. Integers go through HINCRBY (cheaper than HINCRBYFLOAT);
  a field that holds a fraction, or an overflow, falls back to HINCRBYFLOAT,
  whose long-double arithmetic keeps decimal sums clean (0.1 + 0.2 is stored as 0.3).

  key, field  the hash and its field
  value       the value, a decimal string
  isInteger   true when the value is an integer

  Returns the new value (a number after HINCRBY, a decimal string after HINCRBYFLOAT).

addTotal(key, field, value, isInteger, stored): addNumber for a metric's total, or nil, having
written nothing, when the sum would leave a double's range. HINCRBYFLOAT adds long doubles (1e308
+ 1e308 is stored as 2e+308), which no JSON number, Lua number or sorted-set score holds. `stored`
is the total as read (false: absent), or nil to read it here, only when it is needed: an integer
added by HINCRBY cannot go beyond 64-bit integers (it fails and falls back here).

numberText(x): such a value as Redis holds it (an integer's digits exactly, not tostring's
'%.14g'; lua/includes/digits.lua).
]]
--- @include "digits"

local function addNumber(key, field, value, isInteger)
  if isInteger then
    local sum = redis.pcall('HINCRBY', key, field, value)
    if type(sum) == 'number' then return sum end
  end
  return redis.call('HINCRBYFLOAT', key, field, value)
end

local function addTotal(key, field, value, isInteger, stored)
  if isInteger then
    local sum = redis.pcall('HINCRBY', key, field, value)
    if type(sum) == 'number' then return sum end
  end
  if stored == nil then stored = redis.call('HGET', key, field) end
  local sum = (stored or 0) + value
  if sum == math.huge or sum == -math.huge then return nil end
  return redis.call('HINCRBYFLOAT', key, field, value)
end

local function numberText(x)
  if type(x) == 'number' then return digits(x) end
  return x
end
