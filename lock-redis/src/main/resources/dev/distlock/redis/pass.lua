-- A registry leaves the line of a lock without taking it: its waiter gave up, or a wake-up reached it
-- when none of its threads waited for that lock any more. Should the lock be free with others in
-- line, the wake-up goes on to the next one; should it be held, its release is asked to wake them.
-- KEYS[1] the lock (its value: lock-value.lua), KEYS[2] its line (waiters.lua); ARGV[1] the
-- registry's wake-up channel. Returns 1 when it woke the next registry, else 0.
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('EXISTS', KEYS[2]) == 0 then
  return 0
end
local value = redis.pcall('GET', KEYS[1])
if type(value) == 'table' then
  return 0
end
local space, flags = held(value)
if not space then
  wakeNext()
  return 1
end
askToBeWoken(value, flags)
return 0
