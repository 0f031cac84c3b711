-- The line of registries waiting for a plain lock, kept beside its key so that a release wakes one
-- registry, not every one (sent before the scripts that use it, after lock-value.lua):
-- KEYS[2] sorted set distlock:{<key>}:q, member = a registry's wake-up channel, score = when it
-- joined (server microseconds). A waiter joins when its attempt is refused and keeps its place
-- while it waits; the line expires a few re-check times after the last waiter's last attempt.
-- wakeNext() pops the first registry and publishes the lock's name on its channel; with nobody in
-- line (a waiter of an older release, or a registry not listening yet) it publishes on
-- distlock:released, which every registry hears.
local function wakeNext()
  local first = redis.call('ZPOPMIN', KEYS[2])
  if first[1] then
    redis.call('PUBLISH', first[1], KEYS[1])
  else
    redis.call('PUBLISH', 'distlock:released', KEYS[1])
  end
end

-- Sets the wait flag ('w') of a held value, read by held() as (value, flags), so that its release wakes
-- a waiter; a value that has it already is left as it is.
local function askToBeWoken(value, flags)
  local wait = flags + 1
  if string.byte(value, wait) ~= 119 then
    redis.call('SET', KEYS[1], string.sub(value, 1, wait - 1) .. 'w' .. string.sub(value, wait + 1), 'XX', 'KEEPTTL')
  end
end

-- The wait flag a new hold's value starts with: 'w' while registries are in line, so that its
-- release wakes the next one.
local function lineFlag()
  if redis.call('EXISTS', KEYS[2]) == 1 then
    return 'w'
  end
  return '-'
end
