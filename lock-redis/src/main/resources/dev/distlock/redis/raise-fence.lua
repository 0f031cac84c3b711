-- Redlock: makes sure this node's fence for the key is at least the token granted over the
-- majority, so that any later grant here gets a larger one, and records that token as the
-- hold's own while ARGV[2] still holds the lock here (holder.lua reports it). Never lowers a
-- fence, never touches an owner or a lease. When the hash is gone already (a very short lease),
-- a fence-only hash is kept just until this node's clock has passed the token.
-- KEYS[1] lock hash; ARGV[1] token, ARGV[2] owner. Returns 1.
local state = redis.call('HMGET', KEYS[1], 'fence', 'owner')
local fence = state[1]
if state[2] == ARGV[2] then
  redis.call('HSET', KEYS[1], 'token', ARGV[1])
end
if fence then
  -- Compared as decimal strings (no leading zeros), exact beyond 2^53.
  if #fence < #ARGV[1] or (#fence == #ARGV[1] and fence < ARGV[1]) then
    redis.call('HSET', KEYS[1], 'fence', ARGV[1])
  end
  return 1
end
local time = redis.call('TIME')
local ahead = tonumber(ARGV[1]) - (tonumber(time[1]) * 1000000 + tonumber(time[2]))
if ahead >= 0 then
  redis.call('HSET', KEYS[1], 'fence', ARGV[1])
  redis.call('PEXPIRE', KEYS[1], string.format('%d', math.floor(ahead / 1000) + 1))
end
return 1
