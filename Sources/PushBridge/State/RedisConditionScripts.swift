/// The server-side scripts behind the conditions on Redis. A condition is a hash
/// `<prefix>c:<route>\u{1F}<key>`: `rec` (the record as last written, the journal's text),
/// `alert` (its alert id) and the fields that only grow, merged from every replica's writes:
/// `ack` (`1` once acknowledged), `ackby`, `repeats`, `step`, `snooze` (UNIX seconds). The set
/// `<prefix>conditions` lists the raised ones. A reply describing a condition is one string:
/// its merged fields and its record, separated by the ASCII record separator (`\u{1E}`):
/// `ack`, `ackby`, `repeats`, `step`, `snooze`, `rec`.
/// Only commands Redis 7.0 and Valkey both have.
enum RedisConditionScripts {
    /// `KEYS`: the condition, the set of conditions, the message's decision key. `ARGV`:
    /// `1` active / `0` not, the proposed record, its alert id, the condition's id in the set,
    /// how long the decision is kept (ms). Returns (and keeps under the decision key) `R` +
    /// the proposed record (raised), `A` + the condition (already raised), `C` + the condition
    /// (cleared, deleted) or `N` (nothing).
    static let observe = #"""
    local done = redis.call('GET', KEYS[3])
    if done then return done end
    local function described()
      local h = redis.call('HMGET', KEYS[1], 'ack', 'ackby', 'repeats', 'step', 'snooze', 'rec')
      return table.concat({h[1] or '0', h[2] or '', h[3] or '0', h[4] or '0', h[5] or '0', h[6]}, '\30')
    end
    local answer
    local raised = redis.call('EXISTS', KEYS[1]) == 1
    if ARGV[1] == '1' then
      if raised then
        answer = 'A' .. described()
      else
        redis.call('HSET', KEYS[1], 'rec', ARGV[2], 'alert', ARGV[3], 'ack', '0', 'ackby', '', 'repeats', '0', 'step', '0', 'snooze', '0')
        redis.call('SADD', KEYS[2], ARGV[4])
        answer = 'R' .. table.concat({'0', '', '0', '0', '0', ARGV[2]}, '\30')
      end
    elseif raised then
      answer = 'C' .. described()
      redis.call('DEL', KEYS[1])
      redis.call('SREM', KEYS[2], ARGV[4])
    else
      answer = 'N'
    end
    redis.call('SET', KEYS[3], answer, 'PX', tonumber(ARGV[5]))
    return answer
    """#

    /// `KEYS`: the condition. `ARGV`: alert id, record, `1` acknowledged / `0`, acknowledged by,
    /// repeats, step, snoozed until. Nothing when the condition is another alert or gone; else
    /// the record is replaced and each growing field keeps the larger value. Returns 1 or 0.
    static let save = #"""
    if redis.call('HGET', KEYS[1], 'alert') ~= ARGV[1] then return 0 end
    redis.call('HSET', KEYS[1], 'rec', ARGV[2])
    if ARGV[3] == '1' and redis.call('HGET', KEYS[1], 'ack') ~= '1' then
      redis.call('HSET', KEYS[1], 'ack', '1', 'ackby', ARGV[4])
    end
    local grow = {repeats = ARGV[5], step = ARGV[6], snooze = ARGV[7]}
    for field, value in pairs(grow) do
      if tonumber(value) > tonumber(redis.call('HGET', KEYS[1], field) or '0') then
        redis.call('HSET', KEYS[1], field, value)
      end
    end
    return 1
    """#

    /// `KEYS`: the set of conditions. `ARGV`: the key prefix of a condition. Returns each raised
    /// condition's route-and-key id and description, alternately; drops ids whose hash is gone.
    static let all = #"""
    local out = {}
    for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
      local h = redis.call('HMGET', ARGV[1] .. id, 'ack', 'ackby', 'repeats', 'step', 'snooze', 'rec')
      if h[6] then
        out[#out + 1] = id
        out[#out + 1] = table.concat({h[1] or '0', h[2] or '', h[3] or '0', h[4] or '0', h[5] or '0', h[6]}, '\30')
      else
        redis.call('SREM', KEYS[1], id)
      end
    end
    return out
    """#
}
