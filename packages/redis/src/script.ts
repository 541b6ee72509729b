/**
 * The one Lua script that runs every store operation inside Redis, so each operation is atomic (also on
 * Redis Cluster, since every key of a store shares one hash tag) and costs one round trip.
 *
 * Data layout, for a store whose key base is `B` (see keys.ts):
 * - `B f:{path}`  hash `d` = file bytes, `v` = version
 * - `B d:{path}`  hash child name → `f` | `d`: the directory index. A directory exists exactly while
 *                  this hash is non-empty; Redis drops empty hashes, so empty directories vanish.
 * - `B z`         hash directory path → listed size (bytes of files beneath it whose names below the
 *                  directory are all listed names); absent means 0
 * - `B t`         sorted set path → last read/write time in ms, for expiry
 * - `B seq`       the version counter; versions are never reused within a store
 *
 * Call: KEYS[1] = `B seq` (routes the call to the store's slot), ARGV = base, ttl in ms (0: none),
 * operation, operation arguments.
 */
import { createHash } from "node:crypto";

export const STORE_SCRIPT = `
local base = ARGV[1]
local ttl = tonumber(ARGV[2])
local op = ARGV[3]
local ROOT = '/memories'
local SEQ = KEYS[1]
local SIZES = base .. 'z'
local ACCESS = base .. 't'

local function fkey(p) return base .. 'f:' .. p end
local function dkey(p) return base .. 'd:' .. p end
local function exists(k) return redis.call('EXISTS', k) == 1 end
local function parent(p) return (string.match(p, '^(.*)/[^/]*$')) end
local function name(p) return (string.match(p, '([^/]*)$')) end
local function listed(n) return string.sub(n, 1, 1) ~= '.' and n ~= 'node_modules' end
local function under(p, dir) return string.sub(p, 1, #dir + 1) == dir .. '/' end
local function num(v) return tonumber(v) or 0 end

local now
do
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function ms(x) return string.format('%.0f', x) end
local function touch(p) redis.call('ZADD', ACCESS, ms(now), p) end

-- Adds delta to the listed size of each ancestor of p that counts p: walking up stops at the first
-- unlisted name, since nothing beneath an unlisted name counts for the directories above it.
local function addSize(p, delta)
  if delta == 0 then return end
  local child = p
  while child ~= ROOT and listed(name(child)) do
    local dir = parent(child)
    if redis.call('HINCRBY', SIZES, dir, delta) == 0 then redis.call('HDEL', SIZES, dir) end
    child = dir
  end
end

-- Enters p into its parent's index, creating missing ancestors.
local function link(p, kind)
  local child, k = p, kind
  while child ~= ROOT do
    local dir = parent(child)
    local existed = dir == ROOT or exists(dkey(dir))
    redis.call('HSET', dkey(dir), name(child), k)
    if existed then return end
    child, k = dir, 'd'
  end
end

-- Removes p from its parent's index; ancestors left empty vanish.
local function unlink(p)
  local child = p
  while child ~= ROOT do
    local dir = parent(child)
    redis.call('HDEL', dkey(dir), name(child))
    if dir == ROOT or exists(dkey(dir)) then return end
    redis.call('HDEL', SIZES, dir)
    child = dir
  end
end

-- The ancestor of p that is a file, if any (at most one can be, as files have no children).
local function fileAncestor(p)
  local dir = parent(p)
  while dir ~= ROOT do
    if exists(dkey(dir)) then return nil end
    if exists(fkey(dir)) then return dir end
    dir = parent(dir)
  end
  return nil
end

local function removeFile(p)
  local size = redis.call('HSTRLEN', fkey(p), 'd')
  redis.call('DEL', fkey(p))
  redis.call('ZREM', ACCESS, p)
  addSize(p, -size)
  unlink(p)
end

-- Every file and directory beneath dir (dir included in dirs).
local function walk(dir, files, dirs)
  dirs[#dirs + 1] = dir
  local kids = redis.call('HGETALL', dkey(dir))
  for i = 1, #kids, 2 do
    local p = dir .. '/' .. kids[i]
    if kids[i + 1] == 'd' then walk(p, files, dirs) else files[#files + 1] = p end
  end
end

local function purge()
  if ttl <= 0 then return end
  local old = redis.call('ZRANGEBYSCORE', ACCESS, '-inf', '(' .. ms(now - ttl))
  for _, p in ipairs(old) do
    if exists(fkey(p)) then removeFile(p) else redis.call('ZREM', ACCESS, p) end
  end
end

purge()

if op == 'read' then
  local p = ARGV[4]
  local h = redis.call('HMGET', fkey(p), 'd', 'v')
  if not h[1] then return nil end
  if ttl > 0 then touch(p) end
  return h
end

if op == 'stat' then
  local p = ARGV[4]
  if p == ROOT then return {'d'} end
  if exists(fkey(p)) then return {'f', redis.call('HSTRLEN', fkey(p), 'd')} end
  if exists(dkey(p)) then return {'d'} end
  return nil
end

if op == 'list' then
  local dir, depth = ARGV[4], tonumber(ARGV[5])
  if dir ~= ROOT and not exists(dkey(dir)) then return nil end
  local out = {num(redis.call('HGET', SIZES, dir))}
  local function visit(d, level)
    local kids = redis.call('HGETALL', dkey(d))
    for i = 1, #kids, 2 do
      if listed(kids[i]) then
        local p = d .. '/' .. kids[i]
        if kids[i + 1] == 'f' then
          out[#out + 1] = p; out[#out + 1] = 'f'
          out[#out + 1] = redis.call('HSTRLEN', fkey(p), 'd'); out[#out + 1] = level
        else
          out[#out + 1] = p; out[#out + 1] = 'd'
          out[#out + 1] = num(redis.call('HGET', SIZES, p)); out[#out + 1] = level
          if level < depth then visit(p, level + 1) end
        end
      end
    end
  end
  if depth >= 1 then visit(dir, 1) end
  return out
end

if op == 'write' then
  local p, data, expected = ARGV[4], ARGV[5], ARGV[6]
  local fk = fkey(p)
  local oldSize = 0
  if expected == '' then
    if p == ROOT or exists(fk) or exists(dkey(p)) then return {'exists'} end
    local ancestor = fileAncestor(p)
    if ancestor then return {'notdir', ancestor} end
  else
    if redis.call('HGET', fk, 'v') ~= expected then return {'conflict'} end
    oldSize = redis.call('HSTRLEN', fk, 'd')
  end
  local version = tostring(redis.call('INCR', SEQ))
  redis.call('HSET', fk, 'd', data, 'v', version)
  touch(p)
  if expected == '' then link(p, 'f') end
  addSize(p, #data - oldSize)
  return {'ok', version}
end

if op == 'delete' then
  local p = ARGV[4]
  if exists(fkey(p)) then
    removeFile(p)
    return 1
  end
  if p ~= ROOT and not exists(dkey(p)) then return 0 end
  local files, dirs = {}, {}
  walk(p, files, dirs)
  addSize(p, -num(redis.call('HGET', SIZES, p)))
  for _, f in ipairs(files) do
    redis.call('DEL', fkey(f))
    redis.call('ZREM', ACCESS, f)
  end
  for _, d in ipairs(dirs) do
    redis.call('DEL', dkey(d))
    redis.call('HDEL', SIZES, d)
  end
  unlink(p)
  return #files > 0 and 1 or 0
end

if op == 'rename' then
  local from, to = ARGV[4], ARGV[5]
  local isFile = exists(fkey(from))
  if not isFile and (from == ROOT or not exists(dkey(from))) then return {'notfound'} end
  if to == ROOT or exists(fkey(to)) or exists(dkey(to)) then return {'exists'} end
  if under(to, from) then return {'inside'} end
  local ancestor = fileAncestor(to)
  if ancestor then return {'notdir', ancestor} end
  local function moveAccess(a, b)
    local score = redis.call('ZSCORE', ACCESS, a)
    redis.call('ZREM', ACCESS, a)
    if score then redis.call('ZADD', ACCESS, score, b) else touch(b) end
  end
  if isFile then
    local size = redis.call('HSTRLEN', fkey(from), 'd')
    addSize(from, -size)
    unlink(from)
    redis.call('RENAME', fkey(from), fkey(to))
    moveAccess(from, to)
    link(to, 'f')
    addSize(to, size)
    return {'ok'}
  end
  local files, dirs = {}, {}
  walk(from, files, dirs)
  local size = num(redis.call('HGET', SIZES, from))
  addSize(from, -size)
  unlink(from)
  local cut = #from + 1
  -- RENAME fails on a missing key, and a script error would leave the move half done; the guards only
  -- matter if something outside the store removed keys (e.g. an evicting maxmemory policy).
  for _, d in ipairs(dirs) do
    local nd = to .. string.sub(d, cut)
    if exists(dkey(d)) then redis.call('RENAME', dkey(d), dkey(nd)) end
    local s = redis.call('HGET', SIZES, d)
    if s then
      redis.call('HDEL', SIZES, d)
      redis.call('HSET', SIZES, nd, s)
    end
  end
  for _, f in ipairs(files) do
    local nf = to .. string.sub(f, cut)
    if exists(fkey(f)) then redis.call('RENAME', fkey(f), fkey(nf)) end
    moveAccess(f, nf)
  end
  link(to, 'd')
  addSize(to, size)
  return {'ok'}
end

return redis.error_reply('ERR unknown memory store operation')
`;

export const STORE_SCRIPT_SHA = createHash("sha1").update(STORE_SCRIPT).digest("hex");
