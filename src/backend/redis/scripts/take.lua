-- SPDX-License-Identifier: BSD-2-Clause
-- take.lua -- a scheduler takes a task's trigger (`lockrun trigger`), if
-- it is still waiting for its answer.
-- KEYS[1] the trigger key. ARGV[1] "<earliest ms> <deadline ms>": the
-- window of acquire.lua, the scheduler's clock when it sent this (moved
-- by the offset it measured, if any) less a little, and plus its command
-- timeout. Past the deadline by the server's clock (TIME) the scheduler
-- has given up on this take: a take that waited that long (a stalled
-- network that delivers it later, a paused server) deletes nothing, and
-- the trigger stays for a take that is answered; before the earliest, the
-- clocks are too far apart to tell, and the scheduler, told the server's
-- time, asks again with the window moved.
-- Returns {1, value, now} taken (deleted; value, "<ms> <host> <user>"),
--         {0, 0, now} no trigger,
--         {4, 0, now} outside the window: nothing done;
-- now is the server's clock in ms, for the scheduler to measure its offset.
if redis.replicate_commands then redis.replicate_commands() end
local earliest, deadline = string.match(ARGV[1], '^(%-?%d+) (%d+)$')
if not earliest then return redis.error_reply('ERR take: bad arguments') end
earliest, deadline = tonumber(earliest), tonumber(deadline)
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if deadline > 0 and (now > deadline or now < earliest) then return {4, 0, now} end
local v = redis.call('GET', KEYS[1])
if not v then return {0, 0, now} end
redis.call('DEL', KEYS[1])
return {1, v, now}
