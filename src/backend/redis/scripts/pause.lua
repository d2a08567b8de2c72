-- SPDX-License-Identifier: BSD-2-Clause
-- pause.lua -- `lockrun pause` and `lockrun resume`: the task's pause key,
-- which acquire.lua reads in the run's own round trip.
-- KEYS[1] the pause key, KEYS[2] history. ARGV[1] "<pause|resume> <for ms>
-- <until ms> <history cap> <history ttl ms> <host> <user>", ARGV[2] the
-- reason ("" none). A pause ends for ms after the server's clock (TIME)
-- reads now, or at until (Unix ms), or, both 0, not until resumed; the key
-- expires then, by the server's clock, so the pause lifts itself on every
-- server at once. Its value is "<since ms> <until ms, 0: none> <host>
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
if mode == 'resume' then
  local was = redis.call('GET', KEYS[1])
  if not was then return {0, ''} end
  redis.call('DEL', KEYS[1])
  record(KEYS[2], cap, hist_ttl, {'event', 'resumed', 'host', host, 'holder', user})
  return {1, was}
end
local ends = 0
if for_ms > 0 then ends = now + for_ms elseif until_ms > 0 then ends = until_ms end
if ends > 0 and ends <= now then return {0, ''} end
local value = string.format('%.0f %.0f', now, ends) .. ' ' .. host .. ' ' .. user ..
  ' ' .. ARGV[2]
if ends > 0 then
  redis.call('SET', KEYS[1], value, 'PX', string.format('%.0f', ends - now))
else
  redis.call('SET', KEYS[1], value)
end
record(KEYS[2], cap, hist_ttl, {'event', 'paused', 'host', host, 'holder', user})
return {1, value}
