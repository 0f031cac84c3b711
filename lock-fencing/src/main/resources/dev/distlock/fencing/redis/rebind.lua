-- Binds the fence to a new backend and lock key, with the given token as its highest.
-- KEYS[1] the fence; ARGV[1] backend, ARGV[2] lock key, ARGV[3] token.
redis.call('HSET', KEYS[1], 'backend', ARGV[1], 'lock', ARGV[2], 'token', ARGV[3])
return {'ok', ARGV[1], ARGV[2], ARGV[3]}
