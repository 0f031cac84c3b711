-- Who holds the lock now. KEYS[1] the lock (its value: lock-value.lua).
-- Returns {} when nobody does, else {owner, holder description, token, pttl in ms}.
local value = redis.call('GET', KEYS[1])
local space, flags = held(value)
if not space then
  return {}
end
return {string.sub(value, 1, space - 1), string.sub(value, flags + 2), string.sub(value, space + 1, flags - 2),
    redis.call('PTTL', KEYS[1])}
