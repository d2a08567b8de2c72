-- release.lua -- delete the stable key only if this run still owns it.
-- KEYS[1] stable key; ARGV[1] owner id (32 hex digits).
-- Returns 1 released, 0 not ours (it expired, or another run holds it).
local value = redis.call('GET', KEYS[1])
if value and string.sub(value, 1, #ARGV[1] + 1) == ARGV[1] .. ' ' then
  return redis.call('DEL', KEYS[1])
end
return 0
