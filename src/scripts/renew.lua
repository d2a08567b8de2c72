-- renew.lua -- extend the stable key while this run's command lives.
-- KEYS[1] stable key; ARGV[1] the value this run stored
-- ("<owner id> <token> <host> <pid> <start>"); ARGV[2] TTL in ms.
-- Returns 1 renewed; 2 the key was gone (Redis restarted without
-- persistence, or someone deleted it) and is ours again; 0 another run
-- holds it: the lock is lost.
local value = redis.call('GET', KEYS[1])
if value == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if not value then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 2
end
return 0
