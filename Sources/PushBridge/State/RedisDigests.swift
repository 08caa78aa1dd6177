import Foundation

/// The digests' windows in Redis (`state.redis`). A window is a hash `<prefix>dw:<summary id>`
/// (`route`, `key`, `opened`, `ends`, `sent`) with the list of its held alerts
/// `<prefix>dh:<summary id>` (each the journal's row as JSON); `<prefix>dcur:<route>\u{1F}<key>`
/// names the open window of a route and key, and the sorted set `<prefix>digests-due` holds
/// every window by its end. Times are Redis's own clock (milliseconds), which every replica
/// shares. A window that ended is claimed by one replica for `lease` (its score moves on by
/// that much); sent, it is deleted; a replica that died holding it leaves it to the next
/// claim after the lease (a summary is sent at least once, under its one id).
final class RedisDigests: SharedDigests {
    static let keep: Duration = .seconds(86_400)

    private let prefix: String
    private let lease: Duration
    private let connection: RedisConnection
    private let batches: RedisBatches
    private let health: StateHealth
    private let admitScript = RedisScript(RedisDigests.admitSource)
    private let claimScript = RedisScript(RedisDigests.claimSource)

    init(prefix: String, lease: Duration, connection: RedisConnection, batches: RedisBatches, health: StateHealth) {
        self.prefix = prefix
        self.lease = lease
        self.connection = connection
        self.batches = batches
        self.health = health
    }

    /// `KEYS`: the current-window pointer, the due set, the message's decision key. `ARGV`:
    /// window ms, max, the held row (JSON), a new summary id, route, key, keep ms, the key prefix.
    /// Returns (and keeps) `D` or `H`, then the window's summary id, opened and ends (ms), tab-separated.
    static let admitSource = #"""
    local done = redis.call('GET', KEYS[3])
    if done then return done end
    local t = redis.call('TIME')
    local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    local sid = redis.call('GET', KEYS[1])
    if sid and tonumber(redis.call('HGET', ARGV[8] .. 'dw:' .. sid, 'ends') or '0') <= now then sid = nil end
    local window = tonumber(ARGV[1])
    if not sid then
      sid = ARGV[4]
      redis.call('HSET', ARGV[8] .. 'dw:' .. sid, 'route', ARGV[5], 'key', ARGV[6], 'opened', now, 'ends', now + window, 'sent', 0)
      redis.call('SET', KEYS[1], sid, 'PX', window)
      redis.call('ZADD', KEYS[2], now + window, sid)
    end
    local w = ARGV[8] .. 'dw:' .. sid
    local verdict = 'H'
    if tonumber(redis.call('HGET', w, 'sent')) < tonumber(ARGV[2]) then
      redis.call('HINCRBY', w, 'sent', 1)
      verdict = 'D'
    else
      redis.call('RPUSH', ARGV[8] .. 'dh:' .. sid, ARGV[3])
    end
    local answer = table.concat({verdict, sid, redis.call('HGET', w, 'opened'), redis.call('HGET', w, 'ends')}, '\t')
    redis.call('SET', KEYS[3], answer, 'PX', tonumber(ARGV[7]))
    return answer
    """#

    /// `KEYS`: the due set. `ARGV`: lease ms, the key prefix. Claims at most 16 ended windows:
    /// each's score moves to now + lease; returns per window its route, key, summary id, opened,
    /// ends, sent and its held rows (a flat list: 6 fields, the count of rows, the rows).
    static let claimSource = #"""
    local t = redis.call('TIME')
    local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    local out = {}
    for _, sid in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, 16)) do
      redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), sid)
      local w = redis.call('HMGET', ARGV[2] .. 'dw:' .. sid, 'route', 'key', 'opened', 'ends', 'sent')
      if w[1] then
        local held = redis.call('LRANGE', ARGV[2] .. 'dh:' .. sid, 0, -1)
        for _, v in ipairs({w[1], w[2], sid, w[3], w[4], w[5], tostring(#held)}) do out[#out + 1] = v end
        for _, row in ipairs(held) do out[#out + 1] = row end
      else
        redis.call('ZREM', KEYS[1], sid)
      end
    end
    return out
    """#

    func admit(route: String, key: String, window: Double, max: Int, alert: DigestHeldRow, once: String,
               completion: @escaping @Sendable (Bool, DigestWindowRow) -> Void) {
        let id = DigestWindows.windowKey(route: route, key: key)
        let arguments = [String(Int64((window * 1000).rounded())), String(max), Self.json(alert), NotificationRequest.newID(),
                         route, key, String(Self.keep.nanoseconds / 1_000_000), prefix].map { Array($0.utf8) }
        batches.submit(RedisBatches.Call(script: admitScript, keys: [prefix + "dcur:" + id, prefix + "digests-due", prefix + "once:digest:" + once],
                                         arguments: arguments, op: "digest_admit") { reply in
            let f = (reply.text ?? "").split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            let opened = f.count > 2 ? (Double(f[2]) ?? 0) / 1000 : alert.at
            let ends = f.count > 3 ? (Double(f[3]) ?? 0) / 1000 : alert.at + window
            let row = DigestWindowRow(route: route, key: key, summaryID: f.count > 1 ? f[1] : "", opened: opened, ends: ends, sent: 0)
            completion(f.first == "H", row)
        })
    }

    func claimDue() -> [DigestSummary]? {
        guard let items = health.measured("digest_claim", { () throws(RedisError) in
            try claimScript.run(on: connection, keys: [prefix + "digests-due"],
                                arguments: [Array(String(lease.nanoseconds / 1_000_000).utf8), Array(prefix.utf8)])
                .elements(of: "the digests' script")
        }) else { return nil }
        let f = items.map { $0.text ?? "" }
        var out: [DigestSummary] = []
        var i = 0
        while i + 7 <= f.count {
            let count = Int(f[i + 6]) ?? 0
            let row = DigestWindowRow(route: f[i], key: f[i + 1], summaryID: f[i + 2], opened: (Double(f[i + 3]) ?? 0) / 1000,
                                      ends: (Double(f[i + 4]) ?? 0) / 1000, sent: Int(f[i + 5]) ?? 0)
            let held = f[(i + 7)..<min(i + 7 + count, f.count)].compactMap(Self.row)
            out.append(DigestSummary(window: row, held: held))
            i += 7 + count
        }
        return out
    }

    func sent(_ summary: DigestSummary) {
        let sid = summary.id
        do throws(RedisError) {
            _ = try connection.pipeline([["ZREM", prefix + "digests-due", sid], ["DEL", prefix + "dw:" + sid, prefix + "dh:" + sid]]
                .map { $0.map { Array($0.utf8) } })
        } catch {
            // Claimed again after the lease and sent once more, under the same id.
            health.failed("digest_sent", why: error.description)
        }
    }

    /// A held row as JSON (`id`, `title`, `key`, `topic`, `at`).
    static func json(_ r: DigestHeldRow) -> String {
        JSONValue.object(["id": .string(r.id), "title": .string(r.title), "key": .string(r.alertKey), "topic": .string(r.topic),
                          "at": .double(r.at)]).jsonText
    }

    /// A held row from its JSON.
    static func row(_ text: String) -> DigestHeldRow? {
        guard let v = try? JSONValue.parse(Array(text.utf8)), let id = v["id"]?.stringValue, let at = v["at"]?.numberValue else { return nil }
        return DigestHeldRow(id: id, title: v["title"]?.stringValue ?? "", alertKey: v["key"]?.stringValue ?? "",
                             topic: v["topic"]?.stringValue ?? "", at: at)
    }
}
