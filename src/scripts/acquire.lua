-- acquire.lua -- the whole run decision in one round trip.
-- KEYS[1] fencing counter, KEYS[2] stable key, KEYS[3] slot key
-- ARGV[1] owner id (32 hex digits), ARGV[2] "host pid start",
-- ARGV[3] stable key TTL in ms (0: no-overlap is off),
-- ARGV[4] slot key TTL in ms (0: one-server is off).
-- Returns {1, token}  acquired; token is the new fencing token,
--         {0, holder} a copy is still running (the stable key's value),
--         {2, holder} this slot already ran (the slot key's value).
-- "Still running" is checked first: it is the more useful thing to report.
local stable_ttl = tonumber(ARGV[3])
local slot_ttl = tonumber(ARGV[4])
if stable_ttl > 0 then
  local holder = redis.call('GET', KEYS[2])
  if holder then return {0, holder} end
end
if slot_ttl > 0 then
  local holder = redis.call('GET', KEYS[3])
  if holder then return {2, holder} end
end
local token = redis.call('INCR', KEYS[1])
local value = ARGV[1] .. ' ' .. token .. ' ' .. ARGV[2]
if stable_ttl > 0 then redis.call('SET', KEYS[2], value, 'PX', stable_ttl) end
if slot_ttl > 0 then redis.call('SET', KEYS[3], value, 'PX', slot_ttl) end
return {1, token}
