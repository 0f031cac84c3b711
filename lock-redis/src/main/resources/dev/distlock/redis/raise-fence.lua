-- Redlock: raises the key's counter to the token granted over the majority, never lowers it.
-- KEYS[1] counter; ARGV[1] token. Returns 1.
local last = redis.call('GET', KEYS[1])
if not last or tonumber(last) < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1])
end
return 1
