-- acquire.lua -- the whole run decision in one round trip.
-- KEYS[1] fencing counter, KEYS[2] stable key, KEYS[3] slot key
-- ARGV[1] owner id (32 hex digits), ARGV[2] "host pid start",
-- ARGV[3] stable key TTL in ms (0: no-overlap is off),
-- ARGV[4] slot key TTL in ms (0: one-server is off).
-- Returns {1, token}  acquired; token is the new fencing token,
--         {0, holder} a copy is still running (the stable key's value),
--         {2, holder} this slot already ran (the slot key's value);
-- an error BADFENCE when the counter holds something other than a number.
-- "Still running" is checked first: it is the more useful thing to report.
--
-- The token is the larger of (last token + 1) and the server's clock in
-- microseconds, so it goes up even when the counter was lost (FLUSHALL, a
-- restart without persistence, a failover that dropped it) and the
-- counter may expire when a task is no longer run: it lives a day after the
-- last acquire (a constant here, not an argument: Redis refuses more than
-- ten arguments from a client that has not authenticated, which would turn
-- a clear NOAUTH into a protocol error).
local fence_ttl = 86400000
if redis.replicate_commands then redis.replicate_commands() end
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
local last = redis.call('GET', KEYS[1])
local n = 0
if last then
  -- digits only, and exact in a double: not "inf", "1e300", hex or 2^53+
  n = string.match(last, '^%d+$') and #last <= 16 and tonumber(last)
  if not n or n >= 9007199254740992 then
    return redis.error_reply('BADFENCE ' .. KEYS[1] .. ' does not hold a token')
  end
end
local t = redis.call('TIME')
local token = math.max(n + 1, tonumber(t[1]) * 1000000 + tonumber(t[2]))
local digits = string.format('%.0f', token)	-- tostring() would say 1.7e+15
redis.call('SET', KEYS[1], digits, 'PX', fence_ttl)
local value = ARGV[1] .. ' ' .. digits .. ' ' .. ARGV[2]
if stable_ttl > 0 then redis.call('SET', KEYS[2], value, 'PX', stable_ttl) end
if slot_ttl > 0 then redis.call('SET', KEYS[3], value, 'PX', slot_ttl) end
return {1, token}
