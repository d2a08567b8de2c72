-- SPDX-License-Identifier: BSD-2-Clause
-- renew_many.lua -- renew.lua for n leases in one call, for a scheduler
-- that holds its runs' leases over one connection (not on a Cluster: the
-- keys are in many slots). embed.sh puts renew.lua before this, as the
-- function renew_one(KEYS, ARGV). KEYS are n groups of renew.lua's 5,
-- ARGV n pairs of its 2. Returns n answers, each what renew.lua returns
-- for its group (an error among them for a group that renew.lua refuses).
local n = #ARGV / 2
if n * 2 ~= #ARGV or #KEYS ~= n * 5 then
  return redis.error_reply('ERR renew_many: bad arguments')
end
local out = {}
for i = 0, n - 1 do
  local k, a = {}, {ARGV[2 * i + 1], ARGV[2 * i + 2]}
  for j = 1, 5 do k[j] = KEYS[5 * i + j] end
  out[i + 1] = renew_one(k, a)
end
return out
