-- SPDX-License-Identifier: BSD-2-Clause
-- unlock.lua -- `lockrun unlock`: free a lock by hand, and make its holder
-- notice at its next renewal instead of taking the key back.
-- KEYS[1] the key to free (the stable key, or a slot key), KEYS[2]
-- fencing counter, KEYS[3] history, KEYS[4] last run.
-- ARGV[1] "<host> <pid>" of whoever unlocks; ARGV[2] "<history cap>
-- <history ttl ms>"; ARGV[3] the value the operator was shown and agreed
-- to free.
-- Returns {1, value} freed; {3, value} tombstoned: its holder is told to
-- stop; {0} the key was free; {2, value} it holds another value now (the
-- lock changed hands since it was shown): nothing is freed.
-- A stable key whose holder may be running ("id token host pid start",
-- with a lease) is not deleted: a newcomer would run beside the holder
-- until its next renewal. Its value V becomes the tombstone "unlocked:" ..
-- V for the rest of the holder's lease: newcomers see it held, the
-- holder's renewal (renew.lua) finds it and stops, and its release,
-- once its tree is gone, deletes it. A tombstone (a second unlock: the
-- operator knows the holder is gone), a --min-hold leftover ("released:"
-- .. V, release.lua: no holder runs), a slot key, and a value with no
-- lease or not shaped so are freed at once.
-- The counter moves past the holder's token, so renew.lua sees a later
-- token and reports the lock lost (3) rather than ours again (2).
-- A key that is a set of places (limit: N, places.lua) is unlocked one
-- place at a time: the place holding ARGV[3], with its own lease (its
-- score), as the plain key with its value; {0} when no place is held,
-- {2, holder} when ARGV[3] holds none now.
if redis.replicate_commands then redis.replicate_commands() end
local cap, hist_ttl = string.match(ARGV[2], '^(%d+) (%d+)$')
if not cap then return redis.error_reply('ERR unlock: bad arguments') end
cap, hist_ttl = tonumber(cap), tonumber(hist_ttl)
local host, pid = string.match(ARGV[1], '^(%S+) (%S+)$')
local value = redis.pcall('GET', KEYS[1])
local places, ends, left = type(value) == 'table', nil, nil
if places then
  local now = server_ms()
  if places_live(KEYS[1], now) == 0 then return {0} end
  ends = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[3]))
  if not ends then return {2, places_holder(KEYS[1])} end
  value, left = ARGV[3], ends - now
end
if not value then return {0} end
if value ~= ARGV[3] then return {2, value} end
local is_slot = string.find(KEYS[1], ':slot:%d+T%d+Z$') ~= nil
local pttl = left or redis.call('PTTL', KEYS[1])
local code = 1
if not is_slot and pttl > 0 and string.match(value, '^%x+ %S+ %S+ %S+') then
  if places then
    redis.call('ZREM', KEYS[1], value)
    redis.call('ZADD', KEYS[1], ends, 'unlocked:' .. value)
  else
    redis.call('SET', KEYS[1], 'unlocked:' .. value, 'PX', pttl)
  end
  code = 3
elseif places then
  redis.call('ZREM', KEYS[1], value)
else
  redis.call('DEL', KEYS[1])
end
local text = redis.call('GET', KEYS[2]) or '0'
local n = string.match(text, '^%d+$') and #text <= 16 and tonumber(text)
if not n or n >= 9007199254740992 then
  return redis.error_reply('BADFENCE ' .. KEYS[2] .. ' does not hold a token')
end
local t = redis.call('TIME')
local next = math.max(n + 1, tonumber(t[1]) * 1000000 + tonumber(t[2]))
redis.call('SET', KEYS[2], string.format('%.0f', next), 'PX', 86400000)
local token, by = holder_of(value)
-- the slot as the other scripts record it, ISO 8601: 20261121T1745Z and
-- 20261121T174502Z are 2026-11-21T17:45:00Z and 2026-11-21T17:45:02Z
local slot = ''
local y, mo, d, h, mi, s = string.match(KEYS[1],
  ':slot:(%d%d%d%d)(%d%d)(%d%d)T(%d%d)(%d%d)(%d*)Z$')
if y then
  if s == '' then s = '00' end
  slot = y .. '-' .. mo .. '-' .. d .. 'T' .. h .. ':' .. mi .. ':' .. s .. 'Z'
end
record(KEYS[3], cap, hist_ttl, {'event', 'unlocked', 'host', host, 'pid', pid,
  'slot', slot, 'token', token, 'holder', by})
-- the run ends with its stable key; freeing a slot key does not end it,
-- and its release must still record how it ended
if slot == '' then
  note_last(KEYS[4], cap, hist_ttl, token, {'event', 'unlocked', 'end_ms',
    string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))})
end
return {code, value}
