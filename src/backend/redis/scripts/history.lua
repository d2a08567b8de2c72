-- SPDX-License-Identifier: BSD-2-Clause
-- history.lua -- put before each script that records a decision.
-- The history is a stream of at most `cap` entries, newest last; `last` is
-- a hash describing the task's latest run. Each write sets them to expire
-- `ttl` ms later, so a task nobody runs any more leaves nothing behind.
-- cap 0 turns both off. Fields with an empty value are left out.
-- Every write here goes through redis.pcall: the history is bookkeeping,
-- and a refusal (a user without +xadd, a key of the wrong type) must never
-- fail the script that takes or frees the lock, which Redis would not roll
-- back. `lockrun check` names such a refusal.
local function record(hist, cap, ttl, fields)
  if cap <= 0 then return end
  local cmd = {'XADD', hist, 'MAXLEN', cap, '*'}
  for i = 1, #fields, 2 do
    if fields[i + 1] ~= '' then
      cmd[#cmd + 1] = fields[i]
      cmd[#cmd + 1] = fields[i + 1]
    end
  end
  redis.pcall(unpack(cmd))
  redis.pcall('PEXPIRE', hist, ttl)
end

-- Record how the run holding `token` ended in the last-run hash, once, and
-- only while the hash still describes that run: a late word from an old
-- run must not overwrite a newer one's.
local function note_last(last, cap, ttl, token, fields)
  if cap <= 0 then return end
  local h = redis.pcall('HMGET', last, 'token', 'event')
  if h[1] ~= token or h[2] ~= 'running' then return end
  redis.pcall('HSET', last, unpack(fields))
  redis.pcall('PEXPIRE', last, ttl)
end

-- Add one to each counter named in `fields` in the task's counts hash
-- (`lockrun status --format prometheus`). Counted in the script that
-- records the decision, so they cost no round trip; the hash lives `ttl`
-- ms after its last write, as the history does, so counters never reset
-- while the task runs. cap 0 turns them off with the history.
local function count(counts, cap, ttl, fields)
  if cap <= 0 then return end
  for _, f in ipairs(fields) do redis.pcall('HINCRBY', counts, f, 1) end
  -- a pause (pause.lua) in the hash keeps the life it was given
  if redis.pcall('HEXISTS', counts, 'paused') ~= 1 then
    redis.pcall('PEXPIRE', counts, ttl)
  end
end

-- The server's clock in ms: one clock for every host's entries.
local function server_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- "id token host pid start" -> token, "host pid"
local function holder_of(value)
  local token, host, pid = string.match(value or '', '^%S+ (%S+) (%S+) (%S+)')
  return token or '', host and (host .. ' ' .. pid) or ''
end

-- One end entry per run (released, stopped-timeout, lost, killed,
-- withdrawn), keyed by the run's token, not by the last-run hash that the
-- task's next run overwrites: the counts hash's field `ended` holds the
-- tokens of the task's latest 128 recorded ends, oldest first, one space
-- apart. A field, not a key of its own, for the reason the pause is one
-- (no script gains a key: a Redis Cluster slot being migrated answers
-- TRYAGAIN to a script whose declared keys are not all there) and so that
-- it lives as long as the counters it keeps from counting twice. True the
-- first time it is asked for a token, which it then notes; false when that
-- run's end is recorded already: a release sent again after its first
-- went unanswered and ran after all, a loss that a second renewal found
-- again. The caller records and counts only on true. cap 0: nothing is
-- recorded anyway. The hash's life is count()'s.
local function first_end(counts, cap, ttl, token)
  if cap <= 0 or token == '' then return true end
  local seen = redis.pcall('HGET', counts, 'ended')
  seen = type(seen) == 'string' and seen or ''
  if string.find(' ' .. seen .. ' ', ' ' .. token .. ' ', 1, true) then return false end
  seen = seen == '' and token or (seen .. ' ' .. token)
  local n = select(2, string.gsub(seen, ' ', ''))
  while n >= 128 do
    seen = string.sub(seen, string.find(seen, ' ', 1, true) + 1)
    n = n - 1
  end
  redis.pcall('HSET', counts, 'ended', seen)
  count(counts, cap, ttl, {})
  return true
end

-- A run's story in the task's runs hash: the field "h:<token>" holds its
-- header ("name value" lines: event, host, pid, slot, attempt, status,
-- duration_ms, end_ms, reason), "o:<token>" its output's end; "ok" and
-- "failed" the tokens kept of each, oldest first, one space apart. Adding
-- one drops the oldest past `keep` of its kind, in this same write, so the
-- hash never holds more than keep_runs + keep_failed_runs stories; it
-- lives `ttl` ms after its last write, as the history does. keep 0: none.
local function keep_story(runs, token, failed, keep, ttl, header, output)
  if keep <= 0 or token == '' then return end
  local list = failed and 'failed' or 'ok'
  local ids = redis.pcall('HGET', runs, list)
  local kept = {}
  for old in string.gmatch(type(ids) == 'string' and ids or '', '%S+') do
    if old ~= token then kept[#kept + 1] = old end
  end
  kept[#kept + 1] = token
  while #kept > keep do
    local old = table.remove(kept, 1)
    redis.pcall('HDEL', runs, 'h:' .. old, 'o:' .. old)
  end
  redis.pcall('HSET', runs, list, table.concat(kept, ' '), 'h:' .. token, header,
    'o:' .. token, output)
  redis.pcall('PEXPIRE', runs, ttl)
end
