--[[
  Whether an identification may leave subscribeToEmails true: it needs an email, sent in the same
  request or already stored on the user.

  userKey   the user's hash
  needsEmail '1' when the request sets subscribeToEmails to true and carries no email

  Returns true when allowed.
]]
local function canSubscribe(userKey, needsEmail)
  if needsEmail ~= '1' then return true end
  local email = redis.call('HGET', userKey, 'email')
  return email ~= false and email ~= ''
end
