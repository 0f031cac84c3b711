-- Takes the lock if nobody holds it: owner, holder, lease and fencing token in one atomic step.
-- KEYS[1] the lock (its value: lock-value.lua), KEYS[2] its line of waiting registries (waiters.lua),
-- KEYS[3] (optional) a guard: another lock that must be free for a grant (only with a zero wait)
-- ARGV[1] owner, ARGV[2] lease in ms, ARGV[3] '1' when the caller will wait for a release message,
-- ARGV[4] holder description, ARGV[5] the caller's wake-up channel ('' when it has none: it waits
-- for distlock:released, or not at all), ARGV[6] how long the line lasts after an attempt, in ms
-- Returns the token (> 0) when granted; -2 - (the holder's pttl in ms) when another owner holds it.
-- A key this owner holds already counts as granted, its lease set anew: an attempt whose answer was
-- lost may have taken it, and the caller's retry must not take its own hold for contention.
-- Token = max(fence + 1, server time in microseconds): it keeps rising after the key is gone, as
-- long as this server's clock does not step back. Lua numbers are doubles, exact below 2^53 (the
-- clock in microseconds is about 1.8e15).
if KEYS[3] then
  local guard = redis.pcall('GET', KEYS[3])
  if type(guard) == 'table' or held(guard) then
    -- The guard is held (a 0.1 client's hash counts as held): refused as if the lock were, nothing taken.
    return -2 - redis.call('PTTL', KEYS[3])
  end
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local channel, place = ARGV[5], false
if channel ~= '' then
  -- Out of the line while the key is looked at, so that a grant's wait flag counts only the others;
  -- a refusal puts it back in its place.
  place = redis.call('ZSCORE', KEYS[2], channel)
  if place then
    redis.call('ZREM', KEYS[2], channel)
  end
end
if redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. string.format('%d', now) .. ' -' .. lineFlag() .. ARGV[4],
    'NX', 'PX', ARGV[2]) then
  return now
end
local value = redis.pcall('GET', KEYS[1])
if type(value) == 'table' then
  -- WRONGTYPE: the hash of a 0.1 client's hold; held until that client releases it or it expires
  return -2 - redis.call('PTTL', KEYS[1])
end
local space, flags = held(value)
if not space then
  -- '#': a released key whose fence is still ahead of the clock
  local token, ahead = tonumber(string.sub(value, 2)) + 1, 'a'
  if token <= now then
    token, ahead = now, '-'
  end
  redis.call('SET', KEYS[1],
      ARGV[1] .. ' ' .. string.format('%d', token) .. ' ' .. ahead .. lineFlag() .. ARGV[4], 'PX', ARGV[2])
  return token
end
if string.sub(value, 1, space - 1) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return tonumber(string.sub(value, space + 1, flags - 2))
end
if ARGV[3] == '1' then
  -- Asks the holder's release to publish a wake-up; an uncontended release publishes nothing.
  askToBeWoken(value, flags)
  if channel ~= '' then
    -- Back in its place, or at the end on its first refusal; the line lives while its waiters attempt.
    redis.call('ZADD', KEYS[2], place or string.format('%d', now), channel)
    redis.call('PEXPIRE', KEYS[2], ARGV[6])
  end
end
return -2 - redis.call('PTTL', KEYS[1])
