-- SPDX-License-Identifier: BSD-2-Clause
-- take.lua -- a scheduler takes a task's trigger (`lockrun trigger`), if
-- it is still waiting for its answer.
-- KEYS[1] the trigger key. ARGV[1] "<earliest ms> <deadline ms> <lease
-- ms> <id>": the window of acquire.lua, the scheduler's clock when it
-- sent this (moved by the offset it measured, if any) less a little, and
-- plus its command timeout. Past the deadline by the server's clock
-- (TIME) the scheduler has given up on this take: a take that waited that
-- long (a stalled network that delivers it later, a paused server)
-- changes nothing, and the trigger stays for a take that is answered;
-- before the earliest, the clocks are too far apart to tell, and the
-- scheduler, told the server's time, asks again with the window moved.
-- A take does not delete the trigger: it marks it taken by id (the
-- scheduler, "host/pid/seconds") until now + lease, appending "<until
-- ms> <id>" to its value "<ms> <host> <user>"; every look skips it until
-- then, and the acquire of the run it starts deletes it (acquire.lua,
-- its take). A mark whose lease ended (its taker died before the run
-- started) is replaced by the next take's.
-- Returns {1, value, now} taken (marked; value, "<ms> <host> <user>"),
--         {0, 0, now} no trigger,
--         {3, 0, now} a take's mark holds it: nothing done,
--         {4, 0, now} outside the window: nothing done;
-- now is the server's clock in ms, for the scheduler to measure its offset.
if redis.replicate_commands then redis.replicate_commands() end
local earliest, deadline, lease, id = string.match(ARGV[1], '^(%-?%d+) (%d+) (%d+) (%S+)$')
if not earliest then return redis.error_reply('ERR take: bad arguments') end
earliest, deadline, lease = tonumber(earliest), tonumber(deadline), tonumber(lease)
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if deadline > 0 and (now > deadline or now < earliest) then return {4, 0, now} end
local v = redis.call('GET', KEYS[1])
if not v then return {0, 0, now} end
local asked, untl = string.match(v, '^(%S+ %S+ %S+) (%d+) %S+$')
if untl and tonumber(untl) > now then return {3, 0, now} end
asked = asked or v
local left = redis.call('PTTL', KEYS[1])
if left < lease then left = lease end
redis.call('SET', KEYS[1], asked .. ' ' .. string.format('%.0f', now + lease) .. ' ' .. id,
  'PX', left)
return {1, asked, now}
