-- Who holds the lock now. KEYS[1] the lock (layout in acquire.lua).
-- Returns {} when nobody does, else {owner, holder description, token, pttl in ms}.
local value = redis.call('GET', KEYS[1])
if not value or string.byte(value, 1) == 35 then
  return {}
end
local space = string.find(value, ' ', 1, true)
local flags = string.find(value, ' ', space + 1, true) + 1
return {string.sub(value, 1, space - 1), string.sub(value, flags + 2), string.sub(value, space + 1, flags - 2),
    redis.call('PTTL', KEYS[1])}
