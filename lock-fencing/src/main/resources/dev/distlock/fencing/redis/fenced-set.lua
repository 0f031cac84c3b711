-- A fenced write: admits the writer and stores the value in the same step, or stores nothing.
-- KEYS[1] the fence, KEYS[2] the value; ARGV[1] backend, ARGV[2] lock key, ARGV[3] token,
-- ARGV[4] the value.
local result = admit(KEYS[1], ARGV[1], ARGV[2], ARGV[3], true)
if result[1] == 'ok' then
  redis.call('SET', KEYS[2], ARGV[4])
end
return result
