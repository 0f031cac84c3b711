-- Redlock: makes sure this node's token for the key is at least the one granted over the
-- majority, so that any later grant here gets a larger one. On the granted hold that records the
-- hold's own token (holder.lua reports it); should another owner hold the key here by now (the
-- grant's lease ran out), that hold's token here is raised, which only this node reports. Never lowers a token, never touches an owner or a lease.
-- With no hold here (a very short lease), a fence alone is kept just until this node's clock has
-- passed the token.
-- KEYS[1] the lock (its value: lock-value.lua); ARGV[1] token. Returns 1.
local wanted = tonumber(ARGV[1])
local value = redis.call('GET', KEYS[1])
local space, flags = held(value)
if space then
  if tonumber(string.sub(value, space + 1, flags - 2)) < wanted then
    -- flag 'a': the token may now be ahead of this node's clock, which the release checks
    redis.call('SET', KEYS[1], string.sub(value, 1, space) .. ARGV[1] .. ' a' .. string.sub(value, flags + 1),
        'XX', 'KEEPTTL')
  end
  return 1
end
if value and tonumber(string.sub(value, 2)) >= wanted then
  return 1
end
local time = redis.call('TIME')
local ahead = wanted - (tonumber(time[1]) * 1000000 + tonumber(time[2]))
if ahead >= 0 then
  redis.call('SET', KEYS[1], '#' .. ARGV[1], 'PX', string.format('%d', math.floor(ahead / 1000) + 1))
end
return 1
