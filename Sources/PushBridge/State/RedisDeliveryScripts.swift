/// The atomic steps of `RedisDeliveryStore` on the server (Lua, with only commands Redis 7.0
/// and Valkey both have). Each delivery has a mark `<prefix>done:<output>:<key>:<target>`:
/// `a` once it was added to the stream, `d` once it was finished; it expires after
/// `RedisDeliveryStore.markMilliseconds`.
enum RedisDeliveryScripts {
    /// Adds the deliveries of one item. KEYS: for each row its stream, then its mark. ARGV:
    /// mark lifetime (ms), item, files, created, then for each row its key and target. A row
    /// whose mark exists (added or finished before: a replayed item) is not added again.
    /// Returns, per row, the new entry's id or 0.
    static let add = RedisScript("""
        local out = {}
        for i = 1, #KEYS / 2 do
          local stream, mark = KEYS[2 * i - 1], KEYS[2 * i]
          if redis.call('SET', mark, 'a', 'NX', 'PX', ARGV[1]) then
            out[i] = redis.call('XADD', stream, '*', 'k', ARGV[3 + 2 * i], 't', ARGV[4 + 2 * i],
                                'i', ARGV[2], 'f', ARGV[3], 'c', ARGV[4])
          else
            out[i] = 0
          end
        end
        return out
        """)

    /// Finishes entries. KEYS: the stream, then each entry's mark. ARGV: the group, the mark
    /// lifetime (ms), then the entries' ids in the order of their marks. Marks them `d`,
    /// acknowledges and deletes them.
    static let finish = RedisScript("""
        for i = 2, #KEYS do
          redis.call('SET', KEYS[i], 'd', 'PX', ARGV[2])
        end
        for i = 3, #ARGV do
          redis.call('XACK', KEYS[1], ARGV[1], ARGV[i])
          redis.call('XDEL', KEYS[1], ARGV[i])
        end
        return #ARGV - 2
        """)

    /// Keeps a consumer's entries its own. KEYS: the stream. ARGV: the group, the consumer,
    /// then the ids it holds. Each id still pending on that consumer has its idle time reset
    /// (`XCLAIM … 0 … JUSTID`); the ids pending on another consumer (claimed) or no longer
    /// pending are returned: the consumer must not start them.
    static let keep = RedisScript("""
        local lost, mine = {}, {}
        for i = 3, #ARGV do
          local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1)
          if p[1] and p[1][2] == ARGV[2] then
            mine[#mine + 1] = ARGV[i]
          else
            lost[#lost + 1] = ARGV[i]
          end
        end
        for i = 1, #mine, 500 do
          local args = {'XCLAIM', KEYS[1], ARGV[1], ARGV[2], '0'}
          for j = i, math.min(i + 499, #mine) do args[#args + 1] = mine[j] end
          args[#args + 1] = 'JUSTID'
          redis.call(unpack(args))
        end
        return lost
        """)

    /// Forgets the consumers (replicas) with nothing pending that have not read for a while: a
    /// replica that is gone for good (another client_id took its place) is not listed forever.
    /// KEYS: the stream. ARGV: the group, the consumer that asks (kept), the idle time (ms).
    /// Atomic, so a consumer that reads meanwhile is never deleted with entries pending.
    /// Returns how many were forgotten.
    static let forget = RedisScript("""
        local gone = 0
        for _, c in ipairs(redis.call('XINFO', 'CONSUMERS', KEYS[1], ARGV[1])) do
          local info = {}
          for i = 1, #c, 2 do info[c[i]] = c[i + 1] end
          if info['name'] ~= ARGV[2] and info['pending'] == 0 and info['idle'] >= tonumber(ARGV[3]) then
            redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], info['name'])
            gone = gone + 1
          end
        end
        return gone
        """)
}
