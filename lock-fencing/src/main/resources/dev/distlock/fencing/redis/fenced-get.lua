-- A read for a read-modify-write: admits the reader as a writer first (raises the fence), so a
-- holder paused before this read cannot write after it; then reads the value.
-- KEYS[1] the fence, KEYS[2] the value; ARGV[1] backend, ARGV[2] lock key, ARGV[3] token.
-- Returns admit's four fields, and the value as a fifth when there is one.
local result = admit(KEYS[1], ARGV[1], ARGV[2], ARGV[3], true)
if result[1] == 'ok' then
  local value = redis.call('GET', KEYS[2])
  if value then
    result[5] = value
  end
end
return result
