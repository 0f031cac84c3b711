-- The fence as {backend, lock, token}, or an empty list when there is none.
-- KEYS[1] the fence.
local current = redis.call('HMGET', KEYS[1], 'backend', 'lock', 'token')
if not current[3] then
  return {}
end
return current
