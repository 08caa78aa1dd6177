/// The one server-side script behind the remembering filters on Redis: every step of one
/// message, decided atomically in order, once.
///
/// `KEYS[1..n]`: each step's memory key; `KEYS[n+1]`: the message's decision key (empty for
/// `teach` steps, which decide nothing). `ARGV[1]`: n; `ARGV[2]`: how long a decision is kept
/// (ms); then six arguments per step: its kind (`w` window, `c` changed, `t` teach) and its
/// parameters (`w`: window ms, max; `c`: value, the value as a number or empty, deadband,
/// `1` to deliver a first value, keep ms; `t`: value, number, keep ms).
///
/// - A decision key that exists: its answers are returned as they were (a replay).
/// - A window (`dedupe`, `rate_limit`): a list of the admitted hits' times (ms, the server's
///   clock: every replica reads the same one); hits outside the window are dropped; fewer
///   than max left: the hit is added (`p`), else nothing changes (`r`). The key expires
///   with its window.
/// - `changed`: a hash `v` (text) and `n` (number or empty): `f` first, `u` unchanged (equal
///   text, or both numbers within the deadband), `c` changed; recorded unless unchanged within
///   a deadband (the reference stays the last value that differed).
/// - Stops after the first step that stops the chain; the answers (one letter per step
///   applied) are stored under the decision key and returned.
///
/// Uses only commands Redis 7.0 and Valkey both have (TIME, LRANGE, DEL, RPUSH, PEXPIRE,
/// HMGET, HSET, GET, SET … PX).
enum RedisFilterScript {
    static let source = #"""
    local n = tonumber(ARGV[1])
    local once = KEYS[n + 1]
    if once ~= '' then
      local done = redis.call('GET', once)
      if done then return done end
    end
    local t = redis.call('TIME')
    local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    local out = {}
    for i = 1, n do
      local a = 2 + (i - 1) * 6
      local kind, k = ARGV[a + 1], KEYS[i]
      if kind == 'w' then
        local window, max = tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
        local live = {}
        for _, hit in ipairs(redis.call('LRANGE', k, 0, -1)) do
          if now - tonumber(hit) < window then live[#live + 1] = hit end
        end
        if #live >= max then
          out[#out + 1] = 'r'
          break
        end
        live[#live + 1] = tostring(now)
        redis.call('DEL', k)
        redis.call('RPUSH', k, unpack(live))
        redis.call('PEXPIRE', k, window)
        out[#out + 1] = 'p'
      elseif kind == 'c' then
        local value, num, deadband = ARGV[a + 2], ARGV[a + 3], tonumber(ARGV[a + 4])
        local old = redis.call('HMGET', k, 'v', 'n')
        local verdict = 'c'
        if not old[1] then
          verdict = 'f'
        elseif old[1] == value then
          verdict = 'u'
        elseif num ~= '' and old[2] and old[2] ~= '' and math.abs(tonumber(num) - tonumber(old[2])) <= deadband then
          verdict = 'u'
        end
        if not (verdict == 'u' and deadband > 0) then
          redis.call('HSET', k, 'v', value, 'n', num)
        end
        redis.call('PEXPIRE', k, tonumber(ARGV[a + 6]))
        out[#out + 1] = verdict
        if verdict == 'u' or (verdict == 'f' and ARGV[a + 5] ~= '1') then break end
      else
        redis.call('HSET', k, 'v', ARGV[a + 2], 'n', ARGV[a + 3])
        redis.call('PEXPIRE', k, tonumber(ARGV[a + 4]))
      end
    end
    local answer = table.concat(out)
    if once ~= '' then redis.call('SET', once, answer, 'PX', tonumber(ARGV[2])) end
    return answer
    """#
}
