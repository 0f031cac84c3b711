-- Read/write locks: every operation on one key's read/write structure, which lives apart from the
-- plain lock of the same key, in its hash tag (so one Cluster slot):
-- KEYS[1] hash distlock:{<key>}:rw, fields: w (writer's owner), wexp (its lease end, server ms),
--         wholder, fence (the last write token, or the epoch the readers observe), waiting (set while
--         someone waits for a release message)
-- KEYS[2] sorted set distlock:{<key>}:rw:readers, member = reader's owner, score = lease end (server ms)
-- KEYS[3] sorted set distlock:{<key>}:rw:writers, writers waiting: member = owner, score = end of the
--         intent (server ms); a waiting writer refreshes it with every attempt, so a writer that died
--         while waiting holds new readers back only until then
-- KEYS[4] set distlock:{<key>}:rw:line, the wake-up channels of the registries waiting for a release
--         message; it expires a few re-check times after the last waiter's last attempt
-- ARGV[1] operation: acquire | renew | release | withdraw
-- ARGV[2] mode: r | w, ARGV[3] owner
-- acquire: ARGV[4] lease ms, ARGV[5] '1' when the caller will wait, ARGV[6] intent ms (0: a writer in its
--          grace, which waits without holding new readers back), ARGV[7] holder,
--          ARGV[8] the owner's thread prefix (registry:thread:), '' for a hold that belongs to no thread,
--          ARGV[9] the caller's wake-up channel ('' when it has none: it hears distlock:released),
--          ARGV[10] how long the line lasts after an attempt, ms
--          returns {1, token} or {0, ms after which to look again}
-- renew:   ARGV[4] lease ms; returns 1 or 0
-- release: ARGV[4] channel, ARGV[5] message; returns 1 when a hold ended, 0 when there was none
-- withdraw: a waiting writer gave up; ARGV[4] channel, ARGV[5] message; returns 1
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local nowus = tonumber(t[1]) * 1000000 + tonumber(t[2])
local op, mode, owner = ARGV[1], ARGV[2], ARGV[3]

redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local st = redis.call('HMGET', KEYS[1], 'w', 'wexp', 'fence', 'waiting')
local writer, fence, waiting = st[1], st[3], st[4]
if writer and tonumber(st[2]) <= now then
  redis.call('HDEL', KEYS[1], 'w', 'wexp', 'wholder')
  writer = nil
end

local function lastScore(key)
  local top = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  return top[2] and tonumber(top[2]) or nil
end

-- Each key lives as long as what it holds; an idle structure keeps only a fence ahead of the clock.
local function settle()
  local wexp = redis.call('HGET', KEYS[1], 'wexp')
  local readersEnd, writersEnd = lastScore(KEYS[2]), lastScore(KEYS[3])
  local last = math.max(wexp and tonumber(wexp) or 0, readersEnd or 0, writersEnd or 0)
  if readersEnd then redis.call('PEXPIRE', KEYS[2], string.format('%d', readersEnd - now + 1)) end
  if writersEnd then redis.call('PEXPIRE', KEYS[3], string.format('%d', writersEnd - now + 1)) end
  if last > now then
    redis.call('PEXPIRE', KEYS[1], string.format('%d', last - now + 1))
    return
  end
  local f = redis.call('HGET', KEYS[1], 'fence')
  if f and tonumber(f) >= nowus then
    redis.call('HDEL', KEYS[1], 'w', 'wexp', 'wholder', 'waiting')
    redis.call('PEXPIRE', KEYS[1], string.format('%d', math.floor((tonumber(f) - nowus) / 1000) + 1))
  else
    redis.call('DEL', KEYS[1])
  end
end

-- Wakes the registries that wait for this key, each on its own channel (every side may proceed, so all
-- of them); waiters that joined no line hear the channel every registry hears.
local function wake()
  if waiting then
    redis.call('HDEL', KEYS[1], 'waiting')
    local line = redis.call('SMEMBERS', KEYS[4])
    if #line == 0 then
      redis.call('PUBLISH', ARGV[4], ARGV[5])
    else
      redis.call('DEL', KEYS[4])
      for _, channel in ipairs(line) do
        redis.call('PUBLISH', channel, ARGV[5])
      end
    end
  end
end

if op == 'acquire' then
  local lease, willWait = tonumber(ARGV[4]), ARGV[5] == '1'
  local granted, token
  if mode == 'r' then
    local prefix = ARGV[8]
    local ownThread = writer and prefix ~= '' and string.sub(writer, 1, #prefix) == prefix
    if ownThread or (not writer and redis.call('ZCARD', KEYS[3]) == 0) then
      if not fence then
        fence = string.format('%d', nowus)
        redis.call('HSET', KEYS[1], 'fence', fence)
      end
      redis.call('ZADD', KEYS[2], string.format('%d', now + lease), owner)
      granted, token = true, fence
    end
  elseif not writer and redis.call('ZCARD', KEYS[2]) == 0 then
    -- Token = max(fence + 1, server time in microseconds), as for the plain lock.
    if fence and tonumber(fence) >= nowus then
      token = redis.call('HINCRBY', KEYS[1], 'fence', 1)
    else
      token = string.format('%d', nowus)
      redis.call('HSET', KEYS[1], 'fence', token)
    end
    redis.call('HSET', KEYS[1], 'w', owner, 'wexp', string.format('%d', now + lease), 'wholder', ARGV[7])
    redis.call('ZREM', KEYS[3], owner)
    granted = true
  elseif willWait and tonumber(ARGV[6]) > 0 then
    -- Writer preference: from now on new readers queue behind this writer.
    redis.call('ZADD', KEYS[3], string.format('%d', now + tonumber(ARGV[6])), owner)
  end
  if not granted and willWait then
    redis.call('HSET', KEYS[1], 'waiting', '1')
    if ARGV[9] ~= '' then
      redis.call('SADD', KEYS[4], ARGV[9])
      redis.call('PEXPIRE', KEYS[4], ARGV[10])
    end
  end
  settle()
  if granted then
    return {1, token}
  end
  -- When to look again without a message: when the nearest lease or intent in the way ends.
  local retry = now + 60000
  if writer then retry = math.min(retry, tonumber(st[2])) end
  local firstReader = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')[2]
  if mode == 'w' and firstReader then retry = math.min(retry, tonumber(firstReader)) end
  local firstWriter = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')[2]
  if mode == 'r' and firstWriter then retry = math.min(retry, tonumber(firstWriter)) end
  return {0, math.max(1, retry - now)}
end

if op == 'renew' then
  local until_ = string.format('%d', now + tonumber(ARGV[4]))
  local held
  if mode == 'r' then
    held = redis.call('ZSCORE', KEYS[2], owner) ~= false
    if held then redis.call('ZADD', KEYS[2], until_, owner) end
  else
    held = writer == owner
    if held then redis.call('HSET', KEYS[1], 'wexp', until_) end
  end
  settle()
  return held and 1 or 0
end

if op == 'release' then
  local ended = 0
  if mode == 'r' then
    ended = redis.call('ZREM', KEYS[2], owner)
    if ended == 1 and redis.call('ZCARD', KEYS[2]) == 0 then wake() end
  elseif writer == owner then
    redis.call('HDEL', KEYS[1], 'w', 'wexp', 'wholder')
    ended = 1
    wake()
  end
  settle()
  return ended
end

if op == 'withdraw' then
  redis.call('ZREM', KEYS[3], owner)
  if redis.call('ZCARD', KEYS[3]) == 0 then wake() end
  settle()
  return 1
end
return redis.error_reply('read-write.lua: unknown operation ' .. tostring(op))
