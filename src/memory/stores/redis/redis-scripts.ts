// The Lua scripts that write the Redis store. Each runs atomically on the server, so a put or a delete is seen whole
// or not at all, and racing puts of one key or id in one scope leave one entry. Key names are built by the scripts
// from the scope's base key (redis-keys.ts); user text reaches them only base64url-encoded.

// Removes one entry of the scope at `b` and its index rows; returns 1 when it was there.
const REMOVE = `
local function remove(b, id, vk, vd, vi)
  local meta = redis.call('HGET', b .. ':meta', id)
  if not meta then return 0 end
  local words = redis.call('HGET', b .. ':words', id) or ''
  for word in string.gmatch(words, '[^ ]+') do
    redis.call('ZREM', b .. ':w:' .. string.match(word, '^[^=]+'), id)
  end
  local key = redis.call('HGET', b .. ':keyof', id)
  if key then redis.call('HDEL', b .. ':keys', key) end
  local row = string.match(meta, '"row":(%d+)}$')
  if row then
    redis.call('ZREM', vk, row)
    redis.call('HDEL', vd, row)
    redis.call('HDEL', vi, row)
  end
  for _, hash in ipairs({'docs', 'meta', 'words', 'keyof'}) do redis.call('HDEL', b .. ':' .. hash, id) end
  redis.call('ZREM', b .. ':time', id)
  return 1
end
`;

/**
 * ARGV: base, scopes set, scope member, given id ('' for none), new id, key ('' for none), doc, meta (a JSON object),
 * createdMs, words (`<b64>=<weight>` joined by spaces), rows counter, vector rows zset, vector data hash, vector ids
 * hash, vector payload ('' for none). Returns the id the entry was stored under.
 */
export const PUT_SCRIPT = `${REMOVE}
local b, scopes, scope, given, fresh, key = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local vk, vd, vi, vector = ARGV[12], ARGV[13], ARGV[14], ARGV[15]
local holder = false
if key ~= '' then holder = redis.call('HGET', b .. ':keys', key) end
local id = given
if id == '' then id = holder or fresh end
remove(b, id, vk, vd, vi)
if holder and holder ~= id then remove(b, holder, vk, vd, vi) end
local row = redis.call('INCR', ARGV[11])
redis.call('HSET', b .. ':docs', id, ARGV[7])
redis.call('HSET', b .. ':meta', id, string.sub(ARGV[8], 1, -2) .. ',"row":' .. row .. '}')
redis.call('HSET', b .. ':words', id, ARGV[10])
redis.call('ZADD', b .. ':time', ARGV[9], id)
for word in string.gmatch(ARGV[10], '[^ ]+') do
  local suffix, weight = string.match(word, '^([^=]+)=(%d+)$')
  redis.call('ZADD', b .. ':w:' .. suffix, weight, id)
end
if key ~= '' then
  redis.call('HSET', b .. ':keys', key, id)
  redis.call('HSET', b .. ':keyof', id, key)
end
if vector ~= '' then
  redis.call('ZADD', vk, row, row)
  redis.call('HSET', vd, row, vector)
  redis.call('HSET', vi, row, id)
end
redis.call('SADD', scopes, scope)
return id
`;

/** ARGV: base, scopes set, scope member, id, vector rows zset, vector data hash, vector ids hash. Returns 1 or 0. */
export const DELETE_SCRIPT = `${REMOVE}
local b = ARGV[1]
local removed = remove(b, ARGV[4], ARGV[5], ARGV[6], ARGV[7])
if redis.call('HLEN', b .. ':docs') == 0 then redis.call('SREM', ARGV[2], ARGV[3]) end
return removed
`;
