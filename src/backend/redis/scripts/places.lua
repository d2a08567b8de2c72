-- SPDX-License-Identifier: BSD-2-Clause
-- places.lua -- put after history.lua before the lock's own scripts
-- (acquire, renew, release, unlock). A lock that up to N copies may hold
-- at once (limit: N, N > 1) is not a string but a sorted set at the same
-- key: each member is one holder's value, as the plain key would hold it
-- ("id token host pid start", or with "unlocked:" or "released:" before
-- it), scored by when its lease ends by the server's clock (TIME). A
-- member whose score has passed is gone, as an expired key is; the set
-- itself lives until its last member's end. A one-server slot of such a
-- task is a set of its claims the same way, each scored by the slot's end.
-- A GET of the set is refused (WRONGTYPE): the scripts GET with pcall, and
-- a refusal says "a set of places", so that a copy run with limit 1 meets
-- the places of copies run with more (a config changed while they run),
-- and the other way round, and each sees the lock held, never free.

-- Drop key's places whose lease has ended, by the server's clock now;
-- the number left.
local function places_live(key, now)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  return redis.call('ZCARD', key)
end

-- key lives until its last place's lease ends (a set with no member left
-- is gone already: Redis deletes it).
local function places_expire(key, now)
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if last[2] then redis.call('PEXPIRE', key, math.max(tonumber(last[2]) - now, 1)) end
end

-- The holder to show for key: the first place held by a run (not a
-- tombstone, not a --min-hold leftover) in the order the leases end,
-- else the first place; false when there is none.
local function places_holder(key)
  local all = redis.call('ZRANGE', key, 0, -1)
  for _, v in ipairs(all) do
    if string.find(v, '^%x+ ') then return v end
  end
  return all[1] or false
end

-- Is every one of key's limit places taken? Its holder to show, or false.
local function places_full(key, now, limit)
  if places_live(key, now) < limit then return false end
  return places_holder(key)
end

-- The place in key of the run whose owner id is id, its own or its
-- tombstone: the member and its score, or nil.
local function place_of(key, id)
  local all = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
  for i = 1, #all, 2 do
    local v = all[i]
    if string.sub(v, 1, #id + 1) == id .. ' ' or
        string.sub(v, 1, #id + 10) == 'unlocked:' .. id .. ' ' then
      return v, tonumber(all[i + 1])
    end
  end
end
