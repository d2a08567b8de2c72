-- SPDX-License-Identifier: BSD-2-Clause
-- renew.lua -- extend the stable key while this run's command lives.
-- KEYS[1] stable key, KEYS[2] fencing counter, KEYS[3] history, KEYS[4]
-- last run, KEYS[5] counters. ARGV[1] the value this run stored ("<owner id> <token> <host>
-- <pid> <start>"); ARGV[2] "<ttl ms> <history cap> <history ttl ms>
-- <slot or -> <deadline ms>[ <limit>]": past the deadline (the server's clock,
-- TIME) the client has given up on this renewal (a paused server, a
-- stalled network), so it changes nothing; 0: no deadline. A limit
-- above 1 (none: 1) makes the key a set of places (places.lua): the
-- run's place is renewed as the plain key is, and a place found gone is
-- taken back only while fewer than limit are held (else 0, lost).
-- Returns {code, now}, now the server's clock in ms (the client reads
-- it again from each answer), code:
--         4 past the deadline: nothing done, nothing recorded;
--         1 renewed;
--         2 the key was gone (Redis restarted without persistence, or it
--           was deleted) and no token was drawn since ours: ours again;
--         0 another run holds the key: the lock is lost;
--         3 `lockrun unlock` made the key this run's tombstone
--           ("unlocked:" .. ARGV[1], unlock.lua), or the key was gone and a
--           later token was drawn (another run took the lock and let it go
--           since, or unlock freed it): the lock is lost, and not extended.
-- A lost lock is appended to the history and counted (0), once per run
-- (history.lua's first_end(): a renewal sent again finds it lost again);
-- for 3 the run's release,
-- which follows once its tree is gone, records it, and deletes the
-- tombstone.
if redis.replicate_commands then redis.replicate_commands() end
local ttl, cap, hist_ttl, slot, deadline, limit = string.match(ARGV[2],
  '^(%d+) (%d+) (%d+) (%S+) (%d+) ?(%d*)$')
if not ttl then return redis.error_reply('ERR renew: bad arguments') end
cap, hist_ttl, deadline = tonumber(cap), tonumber(hist_ttl), tonumber(deadline)
limit = tonumber(limit) or 1
if slot == '-' then slot = '' end
local now = server_ms()
if deadline > 0 and now > deadline then return {4, now} end
local token, me = holder_of(ARGV[1])
local host, pid = string.match(me, '^(%S+) (%S+)$')

local function lost(code, value)
  local _, by = holder_of(value)
  if not first_end(KEYS[5], cap, hist_ttl, token) then return {code, now} end
  record(KEYS[3], cap, hist_ttl, {'event', 'lost', 'host', host, 'pid', pid,
    'slot', slot, 'token', token, 'holder', by})
  count(KEYS[5], cap, hist_ttl, {'lost'})
  note_last(KEYS[4], cap, hist_ttl, token, {'event', 'lost',
    'end_ms', string.format('%.0f', now)})
  return {code, now}
end

local value = redis.pcall('GET', KEYS[1])
-- a set of places (refused by GET), or none yet for a run that has one
local places = type(value) == 'table' or (not value and limit > 1)
if places then
  local score = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]))
  if score and score > now then
    redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
    places_expire(KEYS[1], now)
    return {1, now}
  end
  if redis.call('ZSCORE', KEYS[1], 'unlocked:' .. ARGV[1]) then return {3, now} end
  if score then redis.call('ZREM', KEYS[1], ARGV[1]) end	-- its lease ended: gone
  local full = places_full(KEYS[1], now, limit)
  if full then return lost(0, full) end
else
  if value == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ttl)
    return {1, now}
  end
  if value == 'unlocked:' .. ARGV[1] then return {3, now} end
  if value then return lost(0, value) end
end
local mine = tonumber(token)
local text = redis.call('GET', KEYS[2]) or '0'
local last = string.match(text, '^%d+$') and #text <= 16 and tonumber(text)
if not last or last >= 9007199254740992 then
  return redis.error_reply('BADFENCE ' .. KEYS[2] .. ' does not hold a token')
end
if last > mine then return {3, now} end
if places then
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
  places_expire(KEYS[1], now)
else
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
end
-- the counter too, if it was lost with the key: a later token must be larger
-- (it lives a day, as acquire.lua sets it)
if last < mine then redis.call('SET', KEYS[2], token, 'PX', 86400000) end
return {2, now}
