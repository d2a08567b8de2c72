-- SPDX-License-Identifier: BSD-2-Clause
-- missed.lua -- a slot that passed its starting_deadline with no run
-- started for it, recorded once across the fleet by the scheduler that
-- claims its slot key (ops.h, missed).
-- KEYS[1] the slot key, KEYS[2] last run, KEYS[3] counters, KEYS[4]
-- history. ARGV[1] "<slot ttl ms> <history cap> <history ttl ms> <slot,
-- ISO 8601> <host> <pid> <noticed at, ISO 8601>".
-- Returns 1 recorded by this call (or by this host and pid before: a try
-- whose answer was lost, asked again); 2 another scheduler recorded it; 0
-- not missed: the task's last run claimed no slot before this one (it did
-- not run then: a new task, a new install; or a later slot ran, and this
-- one, older, is not for this call to judge), or a run has the slot key.
-- Slots compare as their ISO 8601 text, which sorts as time does.
-- The count and the last missed slot are the fields "missed" and
-- "missed_slot" of the counters' hash, which the status reads with the
-- pause in one HMGET. With the history off (cap 0) there is no last-run
-- record, and nothing is recorded.
-- With an eighth field, the mark of a take (take.lua), KEYS[1] is not a
-- slot key but a trigger this scheduler took and could not start by its
-- starting_deadline: if it still holds that mark, it is deleted and
-- "missed" recorded with the slot "triggered" (1); else 0 (its run
-- started and deleted it, or another scheduler took it since).
if redis.replicate_commands then redis.replicate_commands() end
local slot_ttl, cap, hist_ttl, slot, host, pid, at, take = string.match(ARGV[1],
  '^(%d+) (%d+) (%d+) (%S+) (%S+) (%S+) (%S+) ?(%S*)$')
if not slot_ttl then return redis.error_reply('ERR missed: bad arguments') end
cap, hist_ttl = tonumber(cap), tonumber(hist_ttl)
if take ~= '' then
  local mark = string.match(redis.call('GET', KEYS[1]) or '', '^%S+ %S+ %S+ %d+ (%S+)$')
  if mark ~= take then return 0 end
  redis.call('DEL', KEYS[1])
  record(KEYS[4], cap, hist_ttl, {'event', 'missed', 'host', host, 'pid', pid,
    'slot', 'triggered'})
  return 1
end
local before = redis.call('HGET', KEYS[2], 'slot')
if type(before) ~= 'string' or before >= slot then return 0 end
local value = 'missed 0 ' .. host .. ' ' .. pid .. ' ' .. at
if not redis.call('SET', KEYS[1], value, 'NX', 'PX', slot_ttl) then
  -- (a set of places' claims, limit: N, is no missed record: GET refuses it)
  local held = redis.pcall('GET', KEYS[1])
  local by, was = string.match(type(held) == 'string' and held or '',
    '^missed %S+ (%S+) (%S+) ')
  -- ours: this scheduler's earlier try, which went unanswered but ran
  if by == host and was == pid then return 1 elseif by then return 2 end
  return 0
end
record(KEYS[4], cap, hist_ttl, {'event', 'missed', 'host', host, 'pid', pid, 'slot', slot})
redis.pcall('HSET', KEYS[3], 'missed_slot', slot)
count(KEYS[3], cap, hist_ttl, {'missed'})
return 1
