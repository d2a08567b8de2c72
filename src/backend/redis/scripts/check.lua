-- SPDX-License-Identifier: BSD-2-Clause
-- check.lua -- `lockrun check`: would a run work against these keys?
-- It only reads, so a replica answers it too.
-- KEYS[1] stable key, KEYS[2] slot key (the stable key again when
-- one-server is off), KEYS[3] fencing counter, KEYS[4] history,
-- KEYS[5] last run, KEYS[6] counters.
-- Returns the problems found, one line each; none: an empty list.
local want = {'string', 'string', 'string', 'stream', 'hash', 'hash'}
local problems = {}
for i = 1, 6 do
  local t = redis.call('TYPE', KEYS[i])
  t = type(t) == 'table' and t.ok or t
  -- a lock of many places (limit: N) is a sorted set (places.lua)
  if t ~= 'none' and t ~= want[i] and not (i <= 2 and t == 'zset') then
    problems[#problems + 1] = KEYS[i] .. ' holds a ' .. t .. ', not a ' .. want[i]
  end
end
-- what the run's scripts, history and status (its prometheus counters are
-- the counts hash) call, key by key (Redis 7 can say, earlier cannot)
if redis.acl_check_cmd then
  local uses = {
    {'GET', KEYS[1]}, {'SET', KEYS[1], 'v'}, {'PEXPIRE', KEYS[1], '1'},
    {'DEL', KEYS[1]}, {'GET', KEYS[2]}, {'SET', KEYS[2], 'v'},
    {'GET', KEYS[3]}, {'SET', KEYS[3], 'v'},
    {'XADD', KEYS[4], '*', 'f', 'v'}, {'PEXPIRE', KEYS[4], '1'},
    {'XREVRANGE', KEYS[4], '+', '-'},
    {'HSET', KEYS[5], 'f', 'v'}, {'HMGET', KEYS[5], 'f'}, {'HGET', KEYS[5], 'f'},
    {'HGETALL', KEYS[5]},
    {'DEL', KEYS[5]}, {'PEXPIRE', KEYS[5], '1'},
    {'HINCRBY', KEYS[6], 'f', '1'}, {'PEXPIRE', KEYS[6], '1'},
    {'HGETALL', KEYS[6]}, {'TIME'},
  }
  local said = {}
  for _, c in ipairs(uses) do
    local what = c[1] .. (c[2] and (' on ' .. c[2]) or '')
    if not said[what] and not redis.acl_check_cmd(unpack(c)) then
      said[what] = true
      problems[#problems + 1] = 'the Redis user may not run ' .. what
    end
  end
end
return problems
