-- SPDX-License-Identifier: BSD-2-Clause
-- pause.lua -- `lockrun pause` and `lockrun resume`: the task's pause, the
-- field "paused" of its counters' hash (acquire.lua says why not a key of
-- its own), which acquire.lua reads in the run's own round trip.
-- KEYS[1] the counters' hash, KEYS[2] history. ARGV[1] "<pause|resume> <for ms>
-- <until ms> <history cap> <history ttl ms> <host> <user>", ARGV[2] the
-- reason ("" none). A pause ends for ms after the server's clock (TIME)
-- reads now, or at until (Unix ms), or, both 0, not until resumed: the
-- acquire compares that end with the server's clock, so the pause lifts
-- itself on every server at once. The hash lives at least until the end
-- (for ever without one: PERSIST) and then as long as the counters do.
-- Its value is "<since ms> <until ms, 0: none> <host>
-- <user> <reason>".
-- Returns {1, value} paused (the value written) or resumed (the value
--         deleted), {0, ''} nothing to resume, or a pause whose end is
--         already past by the server's clock: nothing written.
if redis.replicate_commands then redis.replicate_commands() end
local mode, for_ms, until_ms, cap, hist_ttl, host, user = string.match(ARGV[1],
  '^(%l+) (%d+) (%d+) (%d+) (%d+) (%S+) (%S+)$')
if not mode then return redis.error_reply('ERR pause: bad arguments') end
for_ms, until_ms = tonumber(for_ms), tonumber(until_ms)
cap, hist_ttl = tonumber(cap), tonumber(hist_ttl)
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function live(v)
  local e = v and tonumber(string.match(v, '^%S+ (%d+)'))
  return v and (not e or e == 0 or e > now)
end
if mode == 'resume' then
  local was = redis.call('HGET', KEYS[1], 'paused')
  if type(was) ~= 'string' then return {0, ''} end
  redis.call('HDEL', KEYS[1], 'paused')
  if hist_ttl > 0 then redis.call('PEXPIRE', KEYS[1], hist_ttl) end
  if not live(was) then return {0, ''} end
  record(KEYS[2], cap, hist_ttl, {'event', 'resumed', 'host', host, 'holder', user})
  return {1, was}
end
local ends = 0
if for_ms > 0 then ends = now + for_ms elseif until_ms > 0 then ends = until_ms end
if ends > 0 and ends <= now then return {0, ''} end
local value = string.format('%.0f %.0f', now, ends) .. ' ' .. host .. ' ' .. user ..
  ' ' .. ARGV[2]
redis.call('HSET', KEYS[1], 'paused', value)
local left = redis.call('PTTL', KEYS[1])
if ends == 0 then
  redis.call('PERSIST', KEYS[1])
elseif left >= 0 and left < ends - now + hist_ttl then
  redis.call('PEXPIRE', KEYS[1], string.format('%.0f', ends - now + hist_ttl))
end
record(KEYS[2], cap, hist_ttl, {'event', 'paused', 'host', host, 'holder', user})
return {1, value}
