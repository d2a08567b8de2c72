-- SPDX-License-Identifier: BSD-2-Clause
-- claim.lua -- a scheduler claims a fire time's slot for the run it is
-- about to fork (ops.h, claim): the loser of the race forks nothing.
-- KEYS[1] the slot key, KEYS[2] history, KEYS[3] counters. ARGV[1]
-- "<slot ttl ms> <history cap> <history ttl ms> <slot, ISO 8601> <host>
-- <pid> <at, ISO 8601> <nonce> <deadline ms> <client ms> <clock tolerance
-- ms>": the window and the clock check are acquire.lua's (a claim that
-- waited past the deadline, or made by a clock that is off, claims
-- nothing; 0: no check).
-- The slot key takes "claim 0 <host> <pid> <at> <nonce>" for the slot's
-- life; the run forked for it is told the nonce, and its acquire
-- (acquire.lua) takes a slot key holding exactly this claim as free.
-- Returns {1, value, now} claimed by this call, or by this nonce before
--                         (a try whose answer was lost, asked again), or
--                         again after this scheduler's own claim;
--         {2, holder, now} another's (a run's, a claim, a missed record):
--                         "skipped-slot" recorded and counted, as the
--                         run's acquire would have;
--         {4, 0, now}     past the deadline: nothing done;
--         {5, 0, now}     the clocks differ by more than the tolerance:
--                         nothing done;
--         {6, 0, now}     the task is paused: nothing done (its run, if
--                         started, records the skip).
-- A claim is published on the claims channel, as acquire.lua does.
if redis.replicate_commands then redis.replicate_commands() end
local slot_ttl, cap, hist_ttl, slot, host, pid, at, nonce, deadline, client, clock_tol =
  string.match(ARGV[1], '^(%d+) (%d+) (%d+) (%S+) (%S+) (%S+) (%S+) (%x+) (%d+) '
  .. '(%d+) (%d+)$')
if not slot_ttl then return redis.error_reply('ERR claim: bad arguments') end
cap, hist_ttl = tonumber(cap), tonumber(hist_ttl)
deadline, client, clock_tol = tonumber(deadline), tonumber(client), tonumber(clock_tol)
local now = server_ms()
if clock_tol > 0 and math.abs(now - client) > clock_tol then return {5, 0, now} end
if deadline > 0 and now > deadline then return {4, 0, now} end
local paused = redis.pcall('HGET', KEYS[3], 'paused')
if type(paused) == 'string' then
  local ends = tonumber(string.match(paused, '^%S+ (%d+)'))
  if not ends or ends == 0 or ends > now then return {6, 0, now} end
end

local value = 'claim 0 ' .. host .. ' ' .. pid .. ' ' .. at .. ' ' .. nonce
local holder = redis.call('GET', KEYS[1])
if holder == value then return {1, value, now} end
-- this scheduler's own earlier claim, which no run of it took (the run
-- could not reach the server, and the slot is tried again): claimed anew
local by_host, by_pid = string.match(holder or '', '^claim 0 (%S+) (%S+) ')
if by_host == host and by_pid == pid then holder = nil end
if holder then
  local token, by = holder_of(holder)
  record(KEYS[2], cap, hist_ttl, {'event', 'skipped-slot', 'host', host, 'pid', pid,
    'slot', slot, 'token', token, 'holder', by})
  count(KEYS[3], cap, hist_ttl, {'skipped_slot'})
  return {2, string.sub(holder, 1, 1024), now}
end
redis.call('SET', KEYS[1], value, 'PX', tonumber(slot_ttl))
local prefix = string.match(KEYS[1], '^(.-){')
if prefix then redis.pcall('PUBLISH', prefix .. 'claims', KEYS[1] .. ' ' .. value) end
return {1, value, now}
