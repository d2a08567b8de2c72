-- SPDX-License-Identifier: BSD-2-Clause
-- acquire.lua -- the whole run decision in one round trip.
-- KEYS[1] fencing counter, KEYS[2] stable key, KEYS[3] slot key (the
-- stable key again when one-server is off), KEYS[4] history, KEYS[5] last
-- run, KEYS[6] counters, KEYS[7] (a triggered run a scheduler started
-- only) its trigger. ARGV[1] "<owner id>
-- <stable ttl ms> <slot ttl ms> <history cap> <history ttl ms> <slot, ISO
-- 8601, or -> <1: record a held lock, 0: not> <the event a run is recorded
-- as: ran, or triggered> <earliest ms> <deadline ms> <client ms> <clock
-- tolerance ms> <claim> <take> <host> <pid> <start>":
-- a stable ttl of 0 means no-overlap is off, a slot ttl of 0 one-server;
-- the last field is 0 for the attempts of --wait after the first, so that
-- a wait leaves one skipped-held entry, not one per attempt; the rest
-- is the owner, "host pid start". The window [earliest, deadline] is
-- the client's clock when it sent this (moved by the offset it measured,
-- if any) less a little, and plus its command timeout: past the deadline
-- (by the server's clock, TIME) the client has given up, so a request
-- that waited that long (a paused server, a stalled network) changes
-- nothing; before the earliest, the clocks are too far apart to tell,
-- and the client, told the server's time, asks again with the window
-- moved; 0 0: no window. The client's clock is what it read when it sent
-- this: a slot is claimed only when it is within the clock tolerance of
-- the server's (the difference includes the request's one-way delay);
-- 0: no check. The clock check comes first: a slot is never claimed by a
-- clock that is off, whatever the window says. The claim is the nonce of
-- the claim its scheduler made of the slot before it forked this run
-- (claim.lua), or -: a slot key that holds exactly that claim is free.
-- The take is the mark its scheduler's take left on the trigger of a
-- triggered run (take.lua), or -: an acquire that decides (takes the lock,
-- or skips: a copy still running, the task paused) deletes the trigger if
-- it still holds that mark, in this same step, so a trigger is kept until
-- a run of it has started (or was skipped, as a run asked by hand is), and
-- no longer (a trigger asked again since replaced the mark, and stays for
-- a run of its own); one refused by its window or the clocks keeps it.
-- The settings and the owner share one argument because Redis refuses more than ten
-- arguments from a client that has not authenticated, which would turn a
-- clear NOAUTH into a protocol error. For the same reason, and because a
-- Redis Cluster slot being migrated answers TRYAGAIN to a script with a
-- declared key that is missing (and refuses one that touches a key it was
-- not told of), the task's pause (pause.lua) is not a key of its own but
-- the field "paused" of the counters' hash, KEYS[6].
-- Returns {1, token, now}  acquired; token is the new fencing token,
--         {0, holder, now} a copy is still running (the stable key's value),
--         {2, holder, now} this slot already ran (the slot key's value),
--         {4, 0, now} outside the window: nothing done, nothing recorded,
--         {5, 0, now} the clocks differ by more than the tolerance: no
--                     slot claimed, nothing recorded;
--         {6, pause, now} the task is paused (the pause's value,
--                     "<since> <until> <host> <user> <reason>"): nothing
--                     taken, "skipped-paused" recorded;
-- now is the server's clock in ms, for the client to measure its offset;
-- an error BADFENCE when the counter holds something other than a number.
-- "Still running" is checked first: it is the more useful thing to report.
-- A holder or a pause is returned cut to its first 1 KiB (shown()): a
-- value grown past what lockrun reads (a writer's, a bug's) is that
-- task's, and must not make the reply of a batch it shares too large.
-- Every outcome is appended to the history and counted (history.lua).
-- A slot claimed is published, "<slot key> <value>", on the channel of
-- the keys' prefix followed by "claims" (ops.h, watch).
-- ARGV[1] may start with "L<limit> " (limit: 2 to 1000): then the stable
-- key and the slot key are sets of places (places.lua), and the run takes
-- a place of each when fewer than limit are held; the holder returned for
-- a skip is the first of those held. A slot of many places is not
-- published: the schedulers that watch would skip it while places are left.
--
-- The token is the larger of (last token + 1) and the server's clock in
-- microseconds, so it goes up even when the counter was lost (FLUSHALL, a
-- restart without persistence, a failover that dropped it) and the
-- counter may expire when a task is no longer run: it lives a day after the
-- last acquire.
local fence_ttl = 86400000
local function shown(v) return string.sub(v, 1, 1024) end
if redis.replicate_commands then redis.replicate_commands() end
local limit, args = string.match(ARGV[1], '^L(%d+) (.*)$')
limit = tonumber(limit) or 1
local id, stable_ttl, slot_ttl, cap, hist_ttl, slot, say_held, ran, earliest, deadline,
  client, clock_tol, claim, take, owner = string.match(args or ARGV[1], '^(%x+) (%d+) (%d+) (%d+) '
  .. '(%d+) (%S+) ([01]) (%l+) (%-?%d+) (%d+) (%d+) (%d+) (%S+) (%S+) (%S+ %S+ %S+)$')
if not id then return redis.error_reply('ERR acquire: bad arguments') end
stable_ttl, slot_ttl = tonumber(stable_ttl), tonumber(slot_ttl)
cap, hist_ttl = tonumber(cap), tonumber(hist_ttl)
earliest, deadline = tonumber(earliest), tonumber(deadline)
client, clock_tol = tonumber(client), tonumber(clock_tol)
if slot == '-' then slot = '' end
local host, pid = string.match(owner, '^(%S+) (%S+)')
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if slot_ttl > 0 and clock_tol > 0 and math.abs(now - client) > clock_tol then
  return {5, 0, now}
end
if deadline > 0 and (now > deadline or now < earliest) then return {4, 0, now} end
-- a triggered run's decision, whatever it is (run, or skipped: recorded
-- as such), is its trigger's: the trigger goes
if take ~= '-' and KEYS[7] then
  local mark = string.match(redis.call('GET', KEYS[7]) or '', '^%S+ %S+ %S+ %d+ (%S+)$')
  if mark == take then redis.call('DEL', KEYS[7]) end
end

-- paused, until its end by the server's clock (a pause that has ended is
-- no pause: it goes now)
local paused = redis.pcall('HGET', KEYS[6], 'paused')
if type(paused) ~= 'string' then paused = nil end
local ends = paused and tonumber(string.match(paused, '^%S+ (%d+)'))
if paused and ends and ends > 0 and ends <= now then
  redis.pcall('HDEL', KEYS[6], 'paused')
  paused = nil
end
if paused then
  local by = string.match(paused, '^%S+ %S+ (%S+ %S+)')
  record(KEYS[4], cap, hist_ttl, {'event', 'skipped-paused', 'host', host, 'pid', pid,
    'slot', slot, 'holder', by or '?'})
  return {6, shown(paused), now}
end

local function skipped(event, value)
  local token, by = holder_of(value)
  record(KEYS[4], cap, hist_ttl, {'event', event, 'host', host, 'pid', pid,
    'slot', slot, 'token', token, 'holder', by})
  count(KEYS[6], cap, hist_ttl,
    {event == 'skipped-held' and 'skipped_held' or 'skipped_slot'})
end

if stable_ttl > 0 then
  local holder = redis.pcall('GET', KEYS[2])
  if type(holder) == 'table' then holder = places_full(KEYS[2], now, limit) end
  if holder then
    if say_held == '1' then skipped('skipped-held', holder) end
    return {0, shown(holder), now}
  end
end
if slot_ttl > 0 then
  local holder = redis.pcall('GET', KEYS[3])
  if type(holder) == 'table' then holder = places_full(KEYS[3], now, limit) end
  if holder and (claim == '-' or
      string.match(holder, '^claim 0 %S+ %S+ %S+ (%x+)$') ~= claim) then
    skipped('skipped-slot', holder)
    return {2, shown(holder), now}
  end
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
local token = math.max(n + 1, tonumber(t[1]) * 1000000 + tonumber(t[2]))
local digits = string.format('%.0f', token)	-- tostring() would say 1.7e+15
redis.call('SET', KEYS[1], digits, 'PX', fence_ttl)
local value = id .. ' ' .. digits .. ' ' .. owner
if stable_ttl > 0 and limit > 1 then
  redis.call('ZADD', KEYS[2], now + stable_ttl, value)
  places_expire(KEYS[2], now)
elseif stable_ttl > 0 then redis.call('SET', KEYS[2], value, 'PX', stable_ttl) end
if slot_ttl > 0 and limit > 1 then
  redis.call('ZADD', KEYS[3], now + slot_ttl, value)
  places_expire(KEYS[3], now)
elseif slot_ttl > 0 then
  redis.call('SET', KEYS[3], value, 'PX', slot_ttl)
  -- the schedulers that watch the claims (SUBSCRIBE prefix .. 'claims')
  -- skip this slot without asking; a hint only, so a user whose ACL
  -- leaves the channel out loses nothing but it
  local prefix = string.match(KEYS[3], '^(.-){')
  if prefix then redis.pcall('PUBLISH', prefix .. 'claims', KEYS[3] .. ' ' .. value) end
end
record(KEYS[4], cap, hist_ttl, {'event', ran, 'host', host, 'pid', pid,
  'slot', slot, 'token', digits})
count(KEYS[6], cap, hist_ttl, {'runs'})
if cap > 0 then
  -- a new run, but the last success (release.lua) is kept until the next
  local success = redis.pcall('HGET', KEYS[5], 'success_ms')
  redis.pcall('DEL', KEYS[5])
  redis.pcall('HSET', KEYS[5], 'event', 'running', 'host', host, 'pid', pid,
    'slot', slot, 'token', digits, 'start_ms', string.format('%.0f', now))
  if type(success) == 'string' then
    redis.pcall('HSET', KEYS[5], 'success_ms', success)
  end
  redis.pcall('PEXPIRE', KEYS[5], hist_ttl)
end
return {1, token, now}
