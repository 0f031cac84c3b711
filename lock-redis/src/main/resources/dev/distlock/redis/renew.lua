-- Extends the lease if the owner still holds the lock.
-- KEYS[1] lock hash; ARGV[1] owner, ARGV[2] lease in ms. Returns 1 when renewed, 0 when not held.
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
