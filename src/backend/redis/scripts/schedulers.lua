-- SPDX-License-Identifier: BSD-2-Clause
-- schedulers.lua -- the fleet's schedulers, as each notes itself at its
-- fire times (ops.h, schedulers): the claims of a fire time are spread
-- among those (sched/claim.h).
-- KEYS[1] the set, prefix .. "schedulers" (sorted by when each last
-- noted itself, by the server's clock). ARGV[1] "<window ms> <host> <pid>".
-- Notes "<host> <pid>" now, forgets those not noted within the window,
-- and returns the rest, this one among them; the set lapses a window
-- after its last note.
if redis.replicate_commands then redis.replicate_commands() end
local window, me = string.match(ARGV[1], '^(%d+) (%S+ %S+)$')
if not window then return redis.error_reply('ERR schedulers: bad arguments') end
window = tonumber(window)
local now = server_ms()
redis.call('ZADD', KEYS[1], now, me)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - window))
redis.call('PEXPIRE', KEYS[1], window)
return redis.call('ZRANGE', KEYS[1], 0, -1)
