-- The one script that runs every store operation inside Redis (see ../script.ts for how it is embedded
-- and sent), so that each operation is atomic, also on Redis Cluster since every key of a store shares
-- one hash tag, and costs one round trip. Redis runs it under Lua 5.1 with the `redis` API; the only
-- globals it reads are redis and unpack (and KEYS and ARGV, as a script, in the line that calls `main`).
--
-- Data layout, for a store whose key base is `B` (see ../keys.ts):
-- - `B f:{path}`  hash `d` = file bytes, `v` = version
-- - `B d:{path}`  hash child name → `f` | `d`: the directory index. A directory exists exactly while
--                  this hash is non-empty; Redis drops empty hashes, so empty directories vanish.
-- - `B o:{path}`  sorted set of the same child names, all of score 0, so that ZRANGE gives them in view's
--                  order: byte order once the lead bytes 0xEE and 0xEF become 0xF5 and 0xF6 (bytes UTF-8
--                  never uses), which puts U+E000–U+FFFF after the characters above U+FFFF, as UTF-16
--                  code units sort them. A listing reads the first names it shows and no others.
-- - `B n`         hash directory path → number of its children with listed names, so that a listing
--                  counts the entries it does not show without reading them
-- - `B c`         hash directory path → number of the files its listed size adds up (absent means 0), so
--                  that a wrapper changing every file's size can correct directory sizes
-- - `B z`         hash directory path → listed size (bytes of files beneath it whose names below the
--                  directory are all listed names); absent means 0
-- - `B t`         sorted set path → last access time in ms, for expiry; kept only while expiry is on
-- - `B T`         present while `B t` holds every file's access time: operations without expiry delete
--                  it, and the first operation with expiry then starts every file's clock anew
-- - `B u`         hash `f` = number of files, `b` = their total bytes (hidden ones included): usage in O(1)
-- - `B s`         hash path → size of each file, kept only with expiry: the Redis expiry of a file key
--                  (the backstop below) must not lose the size the totals need
-- - `B seq`       the version counter; versions are never reused within a store
-- - `B g`         the store's generation: a random id a client gave when none was there. Versions start
--                  again after a purge (or the backstop expiry below) removes `B seq`, and `B g` with it,
--                  so generation and version together name one content for good: what clients' caches
--                  of file bytes are checked against (`readIf`)
-- - `B x`         the erasure fence: present while a purge of this tenant (or of a tenant it is nested in)
--                  runs, or after one that stopped midway; every write, delete and rename is then refused
--                  with an `ERASING` error and changes nothing (SPEC §7)
--
-- Expiry: every operation first removes the files whose access time is older than `now - ttl`, so an
-- expired file is missing at once. As a backstop for stores nobody calls any more, every key touched
-- gets a Redis expiry of twice the ttl (refreshed on each access), so the server reclaims an abandoned
-- store by itself; the script, which runs first while the store is in use, keeps the index consistent.
--
-- Call: KEYS[1] = `B seq` (routes the call to the store's slot), ARGV = base, ttl in ms (0: none), now
-- in ms ('' for the server's clock), operation, operation arguments.
--
-- This file defines `main(KEYS, ARGV)`; ../script.ts adds the line that runs it. Loaded as a Redis function
-- library (FUNCTION LOAD, Redis 7), everything above `main` is built once per server and each call only
-- sets the call's state; sent as a script (EVALSHA), it is built on every call. The state below is set at
-- the start of every call: Redis runs one call at a time, so no call sees another's.
--
-- Every key is built from ARGV[1] rather than passed in KEYS: the keys an operation touches depend on
-- what it finds (a directory's children), and they all share KEYS[1]'s hash tag, so Cluster still sees
-- one slot.
--
-- Answers are Lua tables that Redis turns into arrays; the TypeScript side (../redis-store.ts) reads them by
-- position, so a change here goes with a change there.
local argv, base, ttl, op, SEQ, SIZES, ACCESS, USAGE, FILESIZE, COUNTS, FILES, INDEXED, GEN, now, backstop
local ROOT = '/memories'
local function arg(i) return argv[5 + i] end

local function fkey(p) return base .. 'f:' .. p end
local function dkey(p) return base .. 'd:' .. p end
local function okey(p) return base .. 'o:' .. p end
-- Sorted-set members are names with the lead bytes 0xEE and 0xEF raised, so that byte order is view's
-- order (see the header); a listing turns them back into names.
local TO_ORDER = {['\238'] = '\245', ['\239'] = '\246'}
local TO_NAME = {['\245'] = '\238', ['\246'] = '\239'}
-- (string.find first: most names have neither byte, and gsub builds a new string even when it changes none)
local function orderOf(n)
  if not string.find(n, '[\238\239]') then return n end
  return (string.gsub(n, '[\238\239]', TO_ORDER))
end
local function nameOfOrder(k)
  if not string.find(k, '[\245\246]') then return k end
  return (string.gsub(k, '[\245\246]', TO_NAME))
end
local function exists(k) return redis.call('EXISTS', k) == 1 end
local function parent(p) return (string.match(p, '^(.*)/[^/]*$')) end
local function name(p) return (string.match(p, '([^/]*)$')) end
local function listed(n) return string.byte(n) ~= 46 and n ~= 'node_modules' end
local function under(p, dir) return string.sub(p, 1, #dir + 1) == dir .. '/' end
local function num(v) return tonumber(v) or 0 end

local function ms(x) return string.format('%.0f', x) end

-- A number as an argument of redis.call, which would otherwise format it with '%.14g' on every call:
-- the most frequent ones are kept as strings, the others formatted as integers.
-- (Literals only: while a library loads, Redis lets its top level call no global function.)
-- PAGE is the number of names a listing reads per ZRANGE while it still shows entries: with a limit it
-- reads little more than it shows, however large the directory.
local PAGE = 256
local NUMBERS = {[0] = '0', [1] = '1', [-1] = '-1', [255] = '255'}
local function str(n) return NUMBERS[n] or string.format('%d', n) end

-- Usage totals; the hash goes away with the last file.
local function count(files, bytes)
  if files ~= 0 and redis.call('HINCRBY', USAGE, 'f', str(files)) <= 0 then
    redis.call('DEL', USAGE)
    return
  end
  if bytes ~= 0 then redis.call('HINCRBY', USAGE, 'b', str(bytes)) end
end

-- Marks p accessed now; with expiry, refreshes the backstop of p's key, its directories and the store's own keys.
local function touch(p)
  if ttl <= 0 then return end
  redis.call('ZADD', ACCESS, ms(now), p)
  redis.call('PEXPIRE', fkey(p), backstop)
  local dir = parent(p)
  while dir do
    redis.call('PEXPIRE', dkey(dir), backstop)
    redis.call('PEXPIRE', okey(dir), backstop)
    if dir == ROOT then break end
    dir = parent(dir)
  end
  for _, k in ipairs({SEQ, SIZES, ACCESS, USAGE, FILESIZE, COUNTS, FILES, INDEXED, GEN}) do redis.call('PEXPIRE', k, backstop) end
end

local function sizeOf(p)
  local size = redis.call('HSTRLEN', fkey(p), 'd')
  if size == 0 and ttl > 0 then size = num(redis.call('HGET', FILESIZE, p)) end
  return size
end

-- Adds delta to the listed size of each ancestor of p that counts p: walking up stops at the first
-- unlisted name, since nothing beneath an unlisted name counts for the directories above it.
local function addSize(p, delta, files)
  if delta == 0 and files == 0 then return end
  local deltaArg, filesArg = str(delta), str(files)
  local child = p
  while child ~= ROOT and listed(name(child)) do
    local dir = parent(child)
    if delta ~= 0 and redis.call('HINCRBY', SIZES, dir, deltaArg) == 0 then redis.call('HDEL', SIZES, dir) end
    if files ~= 0 and redis.call('HINCRBY', FILES, dir, filesArg) <= 0 then redis.call('HDEL', FILES, dir) end
    child = dir
  end
end

-- Enters p into its parent's index, creating missing ancestors.
local function link(p, kind)
  local child, k = p, kind
  while child ~= ROOT do
    local dir = parent(child)
    local existed = dir == ROOT or exists(dkey(dir))
    local n = name(child)
    if redis.call('HSET', dkey(dir), n, k) == 1 then
      redis.call('ZADD', okey(dir), '0', orderOf(n))
      if listed(n) then redis.call('HINCRBY', COUNTS, dir, '1') end
    end
    if existed then return end
    child, k = dir, 'd'
  end
end

-- Removes p from its parent's index; ancestors left empty vanish.
local function unlink(p)
  local child = p
  while child ~= ROOT do
    local dir = parent(child)
    local n = name(child)
    if redis.call('HDEL', dkey(dir), n) == 1 then
      redis.call('ZREM', okey(dir), orderOf(n))
      if listed(n) and redis.call('HINCRBY', COUNTS, dir, '-1') <= 0 then redis.call('HDEL', COUNTS, dir) end
    end
    if dir == ROOT or exists(dkey(dir)) then return end
    redis.call('HDEL', SIZES, dir)
    redis.call('HDEL', FILES, dir)
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
  local size = sizeOf(p)
  redis.call('DEL', fkey(p))
  if ttl > 0 then
    redis.call('ZREM', ACCESS, p)
    redis.call('HDEL', FILESIZE, p)
  end
  addSize(p, -size, -1)
  count(-1, -size)
  unlink(p)
  return size
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

-- Removes the expired files; returns their paths and sizes (path, size, path, size...).
local function purge()
  if ttl <= 0 then return {} end
  local old = redis.call('ZRANGEBYSCORE', ACCESS, '-inf', '(' .. ms(now - ttl))
  local out = {}
  for _, p in ipairs(old) do
    local indexed = redis.call('HGET', dkey(parent(p)), name(p)) == 'f'
    if exists(fkey(p)) or indexed then
      out[#out + 1] = p
      out[#out + 1] = removeFile(p)
    else
      redis.call('ZREM', ACCESS, p)
    end
  end
  return out
end

-- Starts every file's clock now: the first operation with expiry after any without it (which kept no
-- access times), so no file lives forever and none vanishes at once.
local function startClocks()
  local files, dirs = {}, {}
  walk(ROOT, files, dirs)
  redis.call('DEL', ACCESS, FILESIZE)
  for _, f in ipairs(files) do
    redis.call('ZADD', ACCESS, ms(now), f)
    redis.call('HSET', FILESIZE, f, str(redis.call('HSTRLEN', fkey(f), 'd')))
  end
  redis.call('SET', INDEXED, '1')
end

-- The operations, by name; each returns the call's answer.
local ops = {}

ops.usage = function()
  local u = redis.call('HMGET', USAGE, 'f', 'b')
  return {num(u[1]), num(u[2])}
end

-- The bytes and version of file p (an access), or nil.
local function readFile(p)
  local h = redis.call('HMGET', fkey(p), 'd', 'v')
  if not h[1] then return nil end
  touch(p)
  return h
end

ops.read = function() return readFile(arg(0)) end

-- A file (an access) for a client that may keep its bytes: `known` is the generation and version it holds
-- them for (see `B g`; '' for none), `nonce` the generation to start when the store has none, `smallest`
-- the size from which the client keeps a file. Answers {'same', token} when the client's bytes are the
-- file's, else {'data', token, bytes} (token '' for a file too small to keep); nil when missing. While the
-- erasure fence is up no generation is started (it would outlive the purge) and the token is ''.
ops.readIf = function()
  local p, known, nonce, smallest = arg(0), arg(1), arg(2), tonumber(arg(3))
  local fk = fkey(p)
  local v, h
  if known == '' then
    h = readFile(p)
    if not h then return nil end
    if #h[1] < smallest then return {'data', '', h[1]} end
    v = h[2]
  else
    v = redis.call('HGET', fk, 'v')
    if not v then return nil end
    touch(p)
  end
  local g = redis.call('GET', GEN)
  if not g and not exists(base .. 'x') then
    g = nonce
    redis.call('SET', GEN, g)
    if ttl > 0 then redis.call('PEXPIRE', GEN, backstop) end
  end
  local token = g and (g .. '/' .. v) or ''
  if token ~= '' and token == known then return {'same', token} end
  return {'data', token, h and h[1] or redis.call('HGET', fk, 'd')}
end

ops.stat = function()
  local p = arg(0)
  if p == ROOT then return {'d'} end
  if exists(fkey(p)) then return {'f', redis.call('HSTRLEN', fkey(p), 'd')} end
  if exists(dkey(p)) then return {'d'} end
  return nil
end

-- HMGET of any number of fields (a Lua call takes a few thousand arguments at most).
local function hmget(key, fields)
  if #fields == 0 then return {} end
  if #fields <= 1000 then return redis.call('HMGET', key, unpack(fields)) end
  local out = {}
  for i = 1, #fields, 1000 do
    local chunk = {}
    for j = i, math.min(i + 999, #fields) do chunk[#chunk + 1] = fields[j] end
    local values = redis.call('HMGET', key, unpack(chunk))
    for _, v in ipairs(values) do out[#out + 1] = v end
  end
  return out
end

-- Listed entries within levels levels beneath p.
local function countBeneath(p, levels)
  local kids = redis.call('HGETALL', dkey(p))
  local c = 0
  for i = 1, #kids, 2 do
    if listed(kids[i]) then
      c = c + 1
      if kids[i + 1] == 'd' and levels > 1 then c = c + countBeneath(p .. '/' .. kids[i], levels - 1) end
    end
  end
  return c
end

-- Entries of d's listed children names (of kinds) within levels levels, themselves included.
local function countEntries(d, names, kinds, levels)
  local c = #names
  if levels < 1 then return c end
  local dirs = {}
  for i, n in ipairs(names) do
    if kinds[i] == 'd' then dirs[#dirs + 1] = d .. '/' .. n end
  end
  if levels == 1 then
    for _, v in ipairs(hmget(COUNTS, dirs)) do c = c + num(v) end
  else
    for _, p in ipairs(dirs) do c = c + countBeneath(p, levels - 1) end
  end
  return c
end

-- The listing of dir: its size, how many entries it left out, its file count (-1 unless counting), then
-- path, kind, size, level and file count of the first limit entries in view's order (depth first, siblings by UTF-16
-- code units).
local function listing(dir, depth, limit, counting)
  local out = {0, 0, -1}
  -- dir's own size (and file count) comes with its first page's directories, in the same command
  local ownPending = true
  local shown, omitted = 0, 0
  -- out's length, kept rather than taken with # (a search) for each of an entry's five fields
  local filled = 3
  local function visit(d, level)
    local zk = okey(d)
    local pos = 0
    while true do
      local page
      if shown < limit then page = redis.call('ZRANGE', zk, str(pos), str(pos + PAGE - 1))
      else page = redis.call('ZRANGE', zk, str(pos), '-1') end
      if #page == 0 then return end
      pos = pos + #page
      local names, named = {}, 0
      for _, k in ipairs(page) do
        local n = nameOfOrder(k)
        if listed(n) then
          named = named + 1
          names[named] = n
        end
      end
      local kinds = hmget(dkey(d), names)
      -- The sizes (and file counts) of the page's directories, in one command each, unless the page
      -- only counts what the listing leaves out.
      local dirs = {}
      if ownPending then dirs[1] = dir end
      if shown < limit then
        for j, n in ipairs(names) do
          if kinds[j] == 'd' then dirs[#dirs + 1] = d .. '/' .. n end
        end
      end
      local dirSizes = hmget(SIZES, dirs)
      local dirFiles = counting and hmget(FILES, dirs)
      local nextDir = 0
      if ownPending then
        ownPending = false
        out[1] = num(dirSizes[1])
        if counting then out[3] = num(dirFiles[1]) end
        nextDir = 1
      end
      local i = 1
      while i <= #names and shown < limit do
        local p = d .. '/' .. names[i]
        shown = shown + 1
        out[filled + 1] = p
        if kinds[i] == 'f' then
          out[filled + 2] = 'f'; out[filled + 3] = redis.call('HSTRLEN', fkey(p), 'd'); out[filled + 4] = level
          out[filled + 5] = 0
          filled = filled + 5
        else
          nextDir = nextDir + 1
          out[filled + 2] = 'd'; out[filled + 3] = num(dirSizes[nextDir]); out[filled + 4] = level
          out[filled + 5] = dirFiles and num(dirFiles[nextDir]) or -1
          filled = filled + 5
          if level < depth then visit(p, level + 1) end
        end
        i = i + 1
      end
      if i <= #names then
        local restNames, restKinds = {}, {}
        for j = i, #names do
          restNames[#restNames + 1] = names[j]
          restKinds[#restKinds + 1] = kinds[j]
        end
        omitted = omitted + countEntries(d, restNames, restKinds, depth - level)
      end
      if #page < PAGE then return end
    end
  end
  if depth >= 1 then visit(dir, 1) end
  if ownPending then
    out[1] = num(redis.call('HGET', SIZES, dir))
    if counting then out[3] = num(redis.call('HGET', FILES, dir)) end
  end
  out[2] = omitted
  return out
end

local function isDirectory(p) return p == ROOT or exists(dkey(p)) end

-- The listing of directory p with the call's depth, limit ('' for none) and file counting, or nil.
local function listingArgs(p)
  if not isDirectory(p) then return nil end
  return listing(p, tonumber(arg(1)), tonumber(arg(2)) or math.huge, arg(3) == '1')
end

ops.list = function() return listingArgs(arg(0)) end

-- A file's bytes and version, or else the listing of a directory: view in one call. Only reading a file
-- is an access (a listing reads no file), so only then do access times stop being complete (see main).
ops.view = function()
  local p = arg(0)
  if p ~= ROOT then
    local h = readFile(p)
    if h then
      if ttl <= 0 then redis.call('DEL', INDEXED) end
      return {'f', h[1], h[2]}
    end
  end
  local l = listingArgs(p)
  return l and {'d', l}
end

ops.write = function()
  local p, data, expected = arg(0), arg(1), arg(2)
  -- The quotas ('' for none), checked after the write's own errors: one script, so nothing comes between.
  local maxFiles, maxBytes = tonumber(arg(3) or ''), tonumber(arg(4) or '')
  local fk = fkey(p)
  local oldSize = 0
  if expected == '' then
    if p == ROOT or redis.call('EXISTS', fk, dkey(p)) > 0 then return {'exists'} end
    local ancestor = fileAncestor(p)
    if ancestor then return {'notdir', ancestor} end
  else
    if redis.call('HGET', fk, 'v') ~= expected then return {'conflict'} end
    oldSize = redis.call('HSTRLEN', fk, 'd')
  end
  if maxFiles or maxBytes then
    local u = redis.call('HMGET', USAGE, 'f', 'b')
    local files, bytes = num(u[1]), num(u[2])
    local over
    if expected == '' then
      over = (maxFiles and files + 1 > maxFiles) or (maxBytes and bytes + #data > maxBytes)
    else
      over = maxBytes and #data > oldSize and bytes - oldSize + #data > maxBytes
    end
    if over then return {'quota', files, bytes} end
  end
  local version = str(redis.call('INCR', SEQ))
  redis.call('HSET', fk, 'd', data, 'v', version)
  if expected == '' then link(p, 'f') end
  if ttl > 0 then redis.call('HSET', FILESIZE, p, str(#data)) end
  addSize(p, #data - oldSize, expected == '' and 1 or 0)
  count(expected == '' and 1 or 0, #data - oldSize)
  touch(p)
  return {'ok', version}
end

ops.delete = function()
  local p = arg(0)
  if exists(fkey(p)) then
    removeFile(p)
    return 1
  end
  if p ~= ROOT and not exists(dkey(p)) then return 0 end
  local files, dirs = {}, {}
  walk(p, files, dirs)
  addSize(p, -num(redis.call('HGET', SIZES, p)), -num(redis.call('HGET', FILES, p)))
  local bytes = 0
  for _, f in ipairs(files) do
    bytes = bytes + sizeOf(f)
    redis.call('DEL', fkey(f))
    if ttl > 0 then
      redis.call('ZREM', ACCESS, f)
      redis.call('HDEL', FILESIZE, f)
    end
  end
  count(-#files, -bytes)
  for _, d in ipairs(dirs) do
    redis.call('DEL', dkey(d), okey(d))
    redis.call('HDEL', SIZES, d)
    redis.call('HDEL', COUNTS, d)
    redis.call('HDEL', FILES, d)
  end
  unlink(p)
  return #files > 0 and 1 or 0
end

ops.rename = function()
  local from, to = arg(0), arg(1)
  local isFile = exists(fkey(from))
  if not isFile and (from == ROOT or not exists(dkey(from))) then return {'notfound'} end
  if to == ROOT or exists(fkey(to)) or exists(dkey(to)) then return {'exists'} end
  if under(to, from) then return {'inside'} end
  local ancestor = fileAncestor(to)
  if ancestor then return {'notdir', ancestor} end
  -- A move is an access (SPEC §7) of every file it moves.
  local function moveAccess(a, b)
    if ttl > 0 then
      redis.call('ZREM', ACCESS, a)
      local size = redis.call('HGET', FILESIZE, a)
      redis.call('HDEL', FILESIZE, a)
      if size then redis.call('HSET', FILESIZE, b, size) end
    end
  end
  -- Moves what hash key holds for directory a to directory b.
  local function moveField(key, a, b)
    local v = redis.call('HGET', key, a)
    if v then
      redis.call('HDEL', key, a)
      redis.call('HSET', key, b, v)
    end
  end
  if isFile then
    local size = redis.call('HSTRLEN', fkey(from), 'd')
    addSize(from, -size, -1)
    unlink(from)
    redis.call('RENAME', fkey(from), fkey(to))
    moveAccess(from, to)
    link(to, 'f')
    addSize(to, size, 1)
    touch(to)
    return {'ok'}
  end
  local files, dirs = {}, {}
  walk(from, files, dirs)
  local size = num(redis.call('HGET', SIZES, from))
  local fileCount = num(redis.call('HGET', FILES, from))
  addSize(from, -size, -fileCount)
  unlink(from)
  local cut = #from + 1
  -- RENAME fails on a missing key, and a script error would leave the move half done; the guards only
  -- matter if something outside the store removed keys (e.g. an evicting maxmemory policy).
  for _, d in ipairs(dirs) do
    local nd = to .. string.sub(d, cut)
    if exists(dkey(d)) then redis.call('RENAME', dkey(d), dkey(nd)) end
    if exists(okey(d)) then redis.call('RENAME', okey(d), okey(nd)) end
    moveField(SIZES, d, nd)
    moveField(FILES, d, nd)
    moveField(COUNTS, d, nd)
  end
  for _, f in ipairs(files) do
    local nf = to .. string.sub(f, cut)
    if exists(fkey(f)) then redis.call('RENAME', fkey(f), fkey(nf)) end
    moveAccess(f, nf)
  end
  link(to, 'd')
  addSize(to, size, fileCount)
  for _, f in ipairs(files) do touch(to .. string.sub(f, cut)) end
  return {'ok'}
end

-- The store-wide keys of a key base, built once per base and kept across calls (as a function library)
-- for the bases called lately: building eight strings was a sizeable share of a short call. At most
-- KEPT bases are kept, so the memory stays bounded however many tenants a server holds.
local KEPT = 512
local storeKeys, kept = {}, 0
local function keysOf(b)
  local k = storeKeys[b]
  if k then return k end
  if kept >= KEPT then storeKeys, kept = {}, 0 end
  k = {b .. 'z', b .. 't', b .. 'u', b .. 's', b .. 'n', b .. 'c', b .. 'T', b .. 'g'}
  storeKeys[b] = k
  kept = kept + 1
  return k
end

-- One call: sets the call's state, then runs the operation.
local function main(keys, args)
  argv = args
  base, op, SEQ = args[1], args[4], keys[1]
  ttl = args[2] == '0' and 0 or tonumber(args[2])
  local k = keysOf(base)
  SIZES, ACCESS, USAGE, FILESIZE, COUNTS, FILES, INDEXED, GEN = k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8]
  if (op == 'write' or op == 'delete' or op == 'rename') and redis.call('EXISTS', base .. 'x') == 1 then
    return redis.error_reply('ERASING the tenant is being erased')
  end
  -- A store built with a clock passes its time; otherwise the server's clock, which every client of the
  -- store shares, decides what has expired. Only expiry reads the time.
  now = args[3] ~= '' and tonumber(args[3]) or nil
  if not now and ttl > 0 then
    local t = redis.call('TIME')
    now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  end
  if ttl > 0 then backstop = ms(ttl * 2) end
  -- Operations that add or access files without expiry record no access times, so the first operation
  -- with expiry after one of them cannot trust `B t` and starts every clock anew.
  if ttl > 0 then
    if not exists(INDEXED) then startClocks() end
  elseif op == 'read' or op == 'readIf' or op == 'write' or op == 'delete' or op == 'rename' then
    redis.call('DEL', INDEXED)
  end
  if op == 'sweep' then return purge() end
  if ttl > 0 then purge() end
  local run = ops[op]
  if not run then return redis.error_reply('ERR unknown memory store operation') end
  return run()
end
