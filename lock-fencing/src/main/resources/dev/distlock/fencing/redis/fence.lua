-- Shared by every fence script (prepended to each). A resource's fence is a hash: the backend and
-- lock key that guard it and the highest token accepted ('token'), kept as the decimal text the
-- caller sent. Tokens are compared as text, never as Lua numbers: those are doubles, exact only
-- below 2^53, and a token may be any positive long.

-- True when decimal token a is above decimal token b (both positive, no leading zeros).
local function above(a, b)
  if #a ~= #b then
    return #a > #b
  end
  return a > b
end

-- Applies the acceptance rule (FenceRule) to the fence at key 'fence'. With raise, an admitted
-- token becomes the highest (the first one binds the resource to its backend and lock key).
-- Returns {outcome, backend, lock, highest}: outcome 'ok', 'none' (a read of a resource with no
-- fence yet), 'stale' or 'mismatch'; the other three describe the fence after the call.
local function admit(fence, backend, lock, token, raise)
  local current = redis.call('HMGET', fence, 'backend', 'lock', 'token')
  if not current[3] then
    if not raise then
      return {'none', backend, lock, token}
    end
    redis.call('HSET', fence, 'backend', backend, 'lock', lock, 'token', token)
    return {'ok', backend, lock, token}
  end
  if current[1] ~= backend or current[2] ~= lock then
    return {'mismatch', current[1], current[2], current[3]}
  end
  if above(current[3], token) then
    return {'stale', current[1], current[2], current[3]}
  end
  if raise and above(token, current[3]) then
    redis.call('HSET', fence, 'token', token)
    current[3] = token
  end
  return {'ok', current[1], current[2], current[3]}
end
