-- renew.lua -- extend the stable key while this run's command lives.
-- KEYS[1] stable key, KEYS[2] fencing counter;
-- ARGV[1] the value this run stored ("<owner id> <token> <host> <pid>
-- <start>"); ARGV[2] TTL in ms; ARGV[3] this run's token.
-- Returns 1 renewed;
--         2 the key was gone (Redis restarted without persistence, or it
--           was deleted) and no token was drawn since ours: ours again;
--         0 another run holds the key: the lock is lost;
--         3 the key was gone and a later token was drawn (another run
--           took the lock and let it go since): the lock is lost.
local value = redis.call('GET', KEYS[1])
if value == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if value then return 0 end
local mine = tonumber(ARGV[3])
local text = redis.call('GET', KEYS[2]) or '0'
local last = string.match(text, '^%d+$') and #text <= 16 and tonumber(text)
if not last or last >= 9007199254740992 then
  return redis.error_reply('BADFENCE ' .. KEYS[2] .. ' does not hold a token')
end
if last > mine then return 3 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
-- the counter too, if it was lost with the key: a later token must be larger
-- (it lives a day, as acquire.lua sets it)
if last < mine then redis.call('SET', KEYS[2], ARGV[3], 'PX', 86400000) end
return 2
