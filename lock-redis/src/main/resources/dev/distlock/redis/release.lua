-- Ends the hold of ARGV[1] (or, with ARGV[2] == 'force', whoever holds it); another owner's hold is
-- never touched. The hash goes at once unless its fence is ahead of this server's clock (a token
-- raised by a Redlock node whose clock is ahead, or many grants within one microsecond): then only
-- the fence stays, until the clock has passed it, so the next token is still larger.
-- KEYS[1] lock hash; ARGV[1] owner, ARGV[2] 'force' to end any owner's hold.
-- Publishes the hash's name on distlock:released (LockKey.RELEASE_CHANNEL) only when a waiter
-- asked for it. Returns 1 when a hold ended, 0 when none.
local state = redis.call('HMGET', KEYS[1], 'owner', 'fence', 'waiting')
if not state[1] or (state[1] ~= ARGV[1] and ARGV[2] ~= 'force') then
  return 0
end
local time = redis.call('TIME')
local ahead = tonumber(state[2]) - (tonumber(time[1]) * 1000000 + tonumber(time[2]))
if ahead < 0 then
  redis.call('DEL', KEYS[1])
else
  redis.call('HDEL', KEYS[1], 'owner', 'holder', 'waiting', 'token')
  redis.call('PEXPIRE', KEYS[1], string.format('%d', math.floor(ahead / 1000) + 1))
end
if state[3] then
  redis.call('PUBLISH', 'distlock:released', KEYS[1])
end
return 1
