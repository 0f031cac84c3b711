-- Frees the lock if the owner still holds it; a lock taken over by another owner is never touched.
-- KEYS[1] lock hash; ARGV[1] owner, ARGV[2] release channel, ARGV[3] message (the lock hash's name).
-- Publishes a wake-up only when a waiter asked for one. Returns 1 when released, 0 when not held.
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then
  return 0
end
local waiting = redis.call('HEXISTS', KEYS[1], 'waiting')
redis.call('DEL', KEYS[1])
if waiting == 1 then
  redis.call('PUBLISH', ARGV[2], ARGV[3])
end
return 1
