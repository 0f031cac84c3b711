-- Admits a writer (ARGV[4] = 'write': raises the fence) or checks a reader ('read').
-- KEYS[1] the fence; ARGV[1] backend, ARGV[2] lock key, ARGV[3] token.
return admit(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4] == 'write')
