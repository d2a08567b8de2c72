-- SPDX-License-Identifier: BSD-2-Clause
-- release.lua -- record how the run ended; free the stable key if this
-- run still owns it.
-- KEYS[1] stable key, KEYS[2] history, KEYS[3] last run, KEYS[4] counters,
-- KEYS[5] slot key (the stable key again when one-server is off), KEYS[6]
-- the runs' stories (a hash, history.lua's keep_story()).
-- ARGV[1] the value this run stored ("<owner id> <token> <host> <pid>
-- <start>"); ARGV[2] "<keep ms> <exit status> <duration ms> <event>
-- <history cap> <history ttl ms> <slot or -> <until ms> <attempt>": keep is
-- how long the key must still live (--min-hold), 0 to delete it now, -1 when
-- the run held no stable key (one-server only); until, when not 0, is when
-- the hold ends by this server's clock, and a release that runs later (it
-- waited in a stalled server) keeps the key no longer; event is released or
-- stopped-timeout; attempt is the command's last attempt (retries:), 0 when
-- it never started: the entry says it (when not 0), and the counters'
-- retries adds attempt - 1.
-- ARGV[3] "<keep runs> <keep failed runs> <reason>": the story's retention
-- (both 0: none kept) and why lockrun ended the command or could not start
-- it, in words ("" none: the history entry then has no reason); ARGV[4]
-- the end of its output ("<1|2><line>\n" each, core/tail.h), "" none.
-- Returns 1 released (deleted, or left to expire after keep ms),
-- 0 not ours (it expired, or another run holds it) or no stable key.
--
-- Event "hook": after the release, an on_success or on_failure hook's
-- section of the run's story (ARGV[4], "h<hook>\n" and its lines,
-- core/tail.h) is added to the end of the story's output, if the story is
-- still kept; nothing else is touched. Returns 1 added, 0 not.
-- The key is ours when it holds this run's value or its tombstone
-- ("unlocked:" .. value, unlock.lua): a tombstone goes now, the tree being
-- gone. A key kept for --min-hold becomes "released:" .. value, so that
-- unlock sees no holder running and frees it at once; the id word carries
-- the prefix, so "id token host pid start" still reads the same.
--
-- Event "skipped-condition": no lock was asked for (its when: exited with
-- status, which the entry keeps; not counted as a failure), ARGV[1]'s token
-- is "-" and keep -1: one entry is recorded, nothing else is touched.
--
-- A stable key that is a set of places (limit: N, places.lua) is
-- released the same way: the run's place goes (or becomes "released:" ..
-- value until keep ms from now), its tombstone goes; a slot's set keeps
-- the run's claim, as a slot key does.
--
-- Event "withdrawn": the acquire went unanswered (its client gave up) and
-- may have taken effect; ARGV[1]'s token is then unknown ("-"). Whatever
-- holds this run's owner id -- the stable key, the slot key -- is
-- deleted, the "ran" entry it wrote is taken out of the history (and its
-- count), and one "withdrawn" entry says so. Returns 1 when the acquire
-- had taken effect, 0 when nothing held the id (it never ran, or was
-- refused as late): then nothing is recorded.
local keep, status, duration, event, cap, hist_ttl, slot, till, attempt = string.match(
  ARGV[2], '^(%-?%d+) (%d+) (%d+) (%S+) (%d+) (%d+) (%S+) (%d+) (%d+)$')
if not keep then return redis.error_reply('ERR release: bad arguments') end
keep, cap, hist_ttl, till = tonumber(keep), tonumber(cap), tonumber(hist_ttl), tonumber(till)
if keep > 0 and till > 0 then keep = math.max(till - server_ms(), 0) end
if slot == '-' then slot = '' end
local token, me = holder_of(ARGV[1])
-- a token of "-": the run drew none (skipped-condition: its condition said
-- no before it asked for the lock), and its entry has none
if token == '-' then token = '' end
local host, pid = string.match(me, '^(%S+) (%S+)$')
local id = string.match(ARGV[1], '^%S+')
local keep_ok, keep_failed, reason = string.match(ARGV[3] or '', '^(%d+) (%d+) ?(.*)$')
keep_ok, keep_failed, reason = tonumber(keep_ok) or 0, tonumber(keep_failed) or 0, reason or ''

local function withdraw()
  local found
  for i = 1, 5, 4 do
    local v = redis.pcall('GET', KEYS[i])
    if type(v) == 'table' then	-- a set of places: the run's own
      v = place_of(KEYS[i], id)
      if v and string.sub(v, 1, #id + 1) == id .. ' ' then
        found = holder_of(v)
        redis.call('ZREM', KEYS[i], v)
      end
    elseif v and string.sub(v, 1, #id + 1) == id .. ' ' then
      found = holder_of(v)
      redis.call('DEL', KEYS[i])
    end
  end
  if not found then return 0 end
  if not first_end(KEYS[4], cap, hist_ttl, found) then return 1 end
  if cap > 0 then
    local entries = redis.pcall('XREVRANGE', KEYS[2], '+', '-', 'COUNT', cap)
    for _, e in ipairs(type(entries) == 'table' and entries or {}) do
      local f = {}
      for j = 1, #e[2], 2 do f[e[2][j]] = e[2][j + 1] end
      if (f.event == 'ran' or f.event == 'triggered') and f.token == found then
        redis.pcall('XDEL', KEYS[2], e[1])
        redis.pcall('HINCRBY', KEYS[4], 'runs', -1)
        break
      end
    end
  end
  record(KEYS[2], cap, hist_ttl, {'event', 'withdrawn', 'host', host, 'pid', pid,
    'slot', slot, 'token', found, 'status', status})
  note_last(KEYS[3], cap, hist_ttl, found, {'event', 'withdrawn', 'status', status,
    'end_ms', string.format('%.0f', server_ms())})
  return 1
end
if event == 'withdrawn' then return withdraw() end
if event == 'hook' then
  if redis.call('HEXISTS', KEYS[6], 'h:' .. token) == 0 then return 0 end
  local o = redis.call('HGET', KEYS[6], 'o:' .. token) or ''
  redis.call('HSET', KEYS[6], 'o:' .. token, o .. (ARGV[4] or ''))
  return 1
end

-- The story of a run whose command started (attempt), with its output;
-- now is when it ended, by the server's clock.
local function story(now)
  if attempt == '0' then return end
  local failed = event ~= 'released' or tonumber(status) ~= 0
  keep_story(KEYS[6], token, failed, failed and keep_failed or keep_ok, hist_ttl,
    table.concat({'event ' .. event, 'host ' .. host, 'pid ' .. pid, 'slot ' .. slot,
      'attempt ' .. attempt, 'status ' .. status, 'duration_ms ' .. duration,
      'end_ms ' .. now, 'reason ' .. reason}, '\n'), ARGV[4] or '')
end

-- A release sent again, after its first try went unanswered and ran after
-- all, records nothing twice, nor one after a renewal recorded the loss:
-- the run's token is among the ended ones (first_end()). A lost run's
-- story is kept all the same (keep_story() replaces one sent again).
if first_end(KEYS[4], cap, hist_ttl, token) then
  local entry = {'event', event, 'host', host, 'pid', pid, 'slot', slot,
    'token', token, 'status', status, 'duration_ms', duration}
  if attempt ~= '0' then
    entry[#entry + 1] = 'attempt'
    entry[#entry + 1] = attempt
  end
  entry[#entry + 1] = 'reason'
  entry[#entry + 1] = reason
  record(KEYS[2], cap, hist_ttl, entry)
  -- a lost run counts as lost, not failed; a timeout is a failure too
  local counted = {}
  if event == 'lost' then counted[1] = 'lost'
  elseif tonumber(status) ~= 0 and event ~= 'skipped-condition' then
    counted[1] = 'failures'
  end
  if event == 'stopped-timeout' then counted[#counted + 1] = 'timeouts' end
  if cap > 0 and tonumber(attempt) > 1 then
    redis.pcall('HINCRBY', KEYS[4], 'retries', tonumber(attempt) - 1)
  end
  count(KEYS[4], cap, hist_ttl, counted)
  local now = string.format('%.0f', server_ms())
  local ending = {'event', event, 'status', status, 'duration_ms', duration,
    'end_ms', now}
  -- the last success outlives later failures: acquire.lua carries it over
  if event == 'released' and tonumber(status) == 0 then
    ending[#ending + 1] = 'success_ms'
    ending[#ending + 1] = now
  end
  -- why lockrun ended it or could not start it, for status to say
  if reason ~= '' then
    ending[#ending + 1] = 'reason'
    ending[#ending + 1] = reason
  end
  note_last(KEYS[3], cap, hist_ttl, token, ending)
  story(now)
elseif event == 'lost' and cap > 0 then
  -- the keep-alive recorded the loss (renew.lua), which knew neither how
  -- the command ended nor why: the last-run record gains both, so that
  -- status says them; the story is still this release's
  local h = redis.pcall('HMGET', KEYS[3], 'token', 'event')
  if h[1] == token and h[2] == 'lost' then
    redis.pcall('HSET', KEYS[3], 'status', status, 'duration_ms', duration)
    if reason ~= '' then redis.pcall('HSET', KEYS[3], 'reason', reason) end
  end
  story(string.format('%.0f', server_ms()))
end
if keep < 0 then return 0 end
local value = redis.pcall('GET', KEYS[1])
if type(value) == 'table' then	-- a set of places: this run's
  local now = server_ms()
  local place, score = place_of(KEYS[1], id)
  if not place then return 0 end
  redis.call('ZREM', KEYS[1], place)
  -- a tombstone goes; a place whose lease ended was no longer ours
  if string.sub(place, 1, 9) == 'unlocked:' or score <= now then
    places_expire(KEYS[1], now)
    return string.sub(place, 1, 9) == 'unlocked:' and 1 or 0
  end
  if keep > 0 then redis.call('ZADD', KEYS[1], now + keep, 'released:' .. place) end
  places_expire(KEYS[1], now)
  return 1
end
local tomb = 'unlocked:' .. id .. ' '
if value and string.sub(value, 1, #tomb) == tomb then
  redis.call('DEL', KEYS[1])
  return 1
end
if not value or string.sub(value, 1, #id + 1) ~= id .. ' ' then
  return 0
end
if keep > 0 then
  redis.call('SET', KEYS[1], 'released:' .. value, 'PX', keep)
else
  redis.call('DEL', KEYS[1])
end
return 1
