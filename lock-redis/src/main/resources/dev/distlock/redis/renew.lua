-- Extends the lease if the owner still holds the lock.
-- KEYS[1] the lock (its value: lock-value.lua); ARGV[1] owner, ARGV[2] lease in ms.
-- Returns 1 when renewed, 0 when not held.
local value = redis.call('GET', KEYS[1])
local space = held(value)
if space and string.sub(value, 1, space - 1) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
