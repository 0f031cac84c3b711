-- Takes the lock if it is free: owner, lease and fencing token in one atomic step.
-- KEYS[1] lock hash  distlock:{<key>}        fields: owner, token, waiting
-- KEYS[2] counter    distlock:{<key>}:fence  last token issued for the key; never expires
-- ARGV[1] owner, ARGV[2] lease in ms, ARGV[3] '1' when the caller will wait for a release message
-- Returns {1, token} when granted, {0, pttl of the holder in ms} when held by someone else.
if redis.call('EXISTS', KEYS[1]) == 0 then
  -- Token = max(counter + 1, server time in microseconds): it keeps rising even after a restart
  -- that lost the counter. Lua numbers are doubles, exact below 2^53; microseconds since 1970
  -- are about 1.8e15, and the counter branch lets Redis do the arithmetic on 64-bit integers.
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
  local last = redis.call('GET', KEYS[2])
  local token
  if last and tonumber(last) >= now then
    redis.call('INCR', KEYS[2])
    token = redis.call('GET', KEYS[2])
  else
    token = string.format('%d', now)
    redis.call('SET', KEYS[2], token)
  end
  redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'token', token)
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {1, token}
end
if ARGV[3] == '1' then
  -- Asks the holder's release to publish a wake-up; an uncontended release publishes nothing.
  redis.call('HSET', KEYS[1], 'waiting', '1')
end
return {0, redis.call('PTTL', KEYS[1])}
