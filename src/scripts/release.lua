-- release.lua -- free the stable key only if this run still owns it.
-- KEYS[1] stable key; ARGV[1] owner id (32 hex digits);
-- ARGV[2] ms the key must still live (--min-hold), 0 to delete it now.
-- Returns 1 released (deleted, or left to expire after ARGV[2] ms),
-- 0 not ours (it expired, or another run holds it).
local value = redis.call('GET', KEYS[1])
if not value or string.sub(value, 1, #ARGV[1] + 1) ~= ARGV[1] .. ' ' then
  return 0
end
if tonumber(ARGV[2]) > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
else
  redis.call('DEL', KEYS[1])
end
return 1
