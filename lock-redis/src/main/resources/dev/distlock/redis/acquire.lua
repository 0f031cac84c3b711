-- Takes the lock if nobody holds it: owner, holder, lease and fencing token in one atomic step.
-- KEYS[1] lock hash distlock:{<key>}, fields: owner, holder (readable description), fence (the
--         last token issued for the key), waiting (set while someone waits for a release)
-- ARGV[1] owner, ARGV[2] lease in ms, ARGV[3] '1' when the caller will wait for a release message,
-- ARGV[4] holder description
-- Returns {1, token} when granted, {0, pttl of the holder in ms} when another owner holds it.
local state = redis.call('HMGET', KEYS[1], 'owner', 'fence')
if state[1] then
  if ARGV[3] == '1' then
    -- Asks the holder's release to publish a wake-up; an uncontended release publishes nothing.
    redis.call('HSET', KEYS[1], 'waiting', '1')
  end
  return {0, redis.call('PTTL', KEYS[1])}
end
-- Token = max(fence + 1, server time in microseconds): it keeps rising after the hash (and its
-- fence) is gone, as long as this server's clock is not behind the one that issued the fence.
-- Lua numbers are doubles, exact below 2^53 (the clock in microseconds is about 1.8e15); the fence
-- branch lets Redis do the arithmetic on 64-bit integers.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local token
if state[2] and tonumber(state[2]) >= now then
  redis.call('HINCRBY', KEYS[1], 'fence', 1)
  token = redis.call('HGET', KEYS[1], 'fence')
  redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'holder', ARGV[4])
else
  token = string.format('%d', now)
  redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'holder', ARGV[4], 'fence', token)
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {1, token}
