-- Ends the hold of ARGV[1] (or, with ARGV[2] == 'force', whoever holds it); another owner's hold is
-- never touched. The key goes at once, unless the hold's token may be ahead of this server's clock
-- (flag 'a': raised past the clock by a fence or a Redlock write-back) and is: then only the fence
-- stays, as '#<token>', until the clock has passed it, so the next token is still larger. A token
-- taken from the clock (flag '-') is behind it by now: the release ran after the grant's script.
-- KEYS[1] the lock (its value: lock-value.lua), KEYS[2] its line of waiting registries (waiters.lua);
-- ARGV[1] owner, ARGV[2] 'force' to end any owner's hold.
-- Wakes the first registry in line only when a waiter asked for it (flag 'w'). Returns 1 when a
-- hold ended, 0 when none.
local value = redis.call('GET', KEYS[1])
local space, flags = held(value)
if not space then
  return 0
end
if string.sub(value, 1, space - 1) ~= ARGV[1] and ARGV[2] ~= 'force' then
  return 0
end
if string.byte(value, flags) == 97 then
  local token = string.sub(value, space + 1, flags - 2)
  local time = redis.call('TIME')
  local ahead = tonumber(token) - (tonumber(time[1]) * 1000000 + tonumber(time[2]))
  if ahead >= 0 then
    redis.call('SET', KEYS[1], '#' .. token, 'PX', string.format('%d', math.floor(ahead / 1000) + 1))
  else
    redis.call('DEL', KEYS[1])
  end
else
  redis.call('DEL', KEYS[1])
end
if string.byte(value, flags + 1) == 119 then
  wakeNext()
end
return 1
