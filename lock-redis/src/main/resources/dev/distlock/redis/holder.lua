-- Who holds the lock now. KEYS[1] lock hash.
-- Returns {} when nobody does, else {owner, holder description, token, pttl in ms}; the token is
-- the hold's own (set by a Redlock majority) when recorded, else the fence.
local state = redis.call('HMGET', KEYS[1], 'owner', 'holder', 'fence', 'token')
if not state[1] then
  return {}
end
return {state[1], state[2] or '', state[4] or state[3], redis.call('PTTL', KEYS[1])}
