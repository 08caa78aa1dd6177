import Foundation
import Synchronization

/// The deliveries on Redis (`state.redis`, docs/outputs.md "With state.redis"): one stream
/// per output (`<prefix>out:<output>`) read by one consumer group (`pushbridge`) in which each
/// replica is the consumer named by its broker `client_id`.
///
/// An entry is added when the item is handed over, read by one replica's worker, and
/// acknowledged and deleted when finished. A replica keeps the entries it holds its own by
/// resetting their idle time every `claim_after / 4` (`keep`), and starts none once it could
/// not do so for `claim_after / 2`; entries idle for `claim_after` (their replica stopped
/// answering) are claimed by another (`XAUTOCLAIM`). A mark per delivery (`RedisDeliveryScripts`)
/// keeps a replayed item from being added twice and a claimed entry that was already
/// delivered from being sent again.
final class RedisDeliveryStore: OutputDeliveryStore {
    /// The consumer group of every output stream.
    static let group = "pushbridge"
    /// How long a delivery's mark lives: a replay of the same item within it adds nothing.
    static let markMilliseconds = 86_400_000

    let config: RedisStateConfig
    /// This replica's consumer name (the broker `client_id`).
    let consumer: String
    let health: StateHealth
    private let logger: BridgeLogger
    /// The hand-off's connection (the message path), apart from the workers'.
    private let adds: RedisConnection
    /// Each output's worker's connection.
    private let connections: [String: RedisConnection]
    /// The outputs whose group is known to exist.
    private let groups = Mutex<Set<String>>([])
    /// Upkeeps per output since the gone consumers were last forgotten.
    private let upkeeps = Mutex<[String: Int]>([:])
    /// A consumer with nothing pending that has not read for this long is forgotten.
    static let forgetAfterMilliseconds = 86_400_000
    /// The gone consumers are looked for once every this many upkeeps (about ten `claim_after`).
    static let forgetEvery = 40

    var backend: String { "Redis streams" }
    var traits: OutputStoreTraits {
        OutputStoreTraits(shared: true, retriesAdds: true, marksFallbacks: false, upkeepInterval: claimAfter / 4)
    }
    private var claimAfter: Double { max(0.2, config.claimAfter.seconds) }

    /// The store of `outputs` on the server of `config`, as consumer `consumer`.
    init(config: RedisStateConfig, consumer: String, outputs: [String], health: StateHealth, logger: BridgeLogger) {
        self.config = config
        self.consumer = consumer
        self.health = health
        self.logger = logger
        adds = RedisConnection(address: config.address)
        connections = Dictionary(outputs.map { ($0, RedisConnection(address: config.address)) }, uniquingKeysWith: { a, _ in a })
    }

    /// The stream of `output`.
    func streamKey(_ output: String) -> String { config.prefix + "out:" + output }
    /// The mark of one delivery.
    func markKey(_ output: String, key: String, target: String) -> String { config.prefix + "done:\(output):\(key):\(target)" }

    func add(_ rows: [DeliveryRowKey], item: [UInt8], files: [String], created: Double) throws(OutputStoreError) -> [Bool] {
        guard !rows.isEmpty else { return [] }
        let keys = rows.flatMap { [streamKey($0.output), markKey($0.output, key: $0.key, target: $0.target)] }
        var arguments = [Array(String(Self.markMilliseconds).utf8), item, Array(files.joined(separator: "\n").utf8),
                         Array(String(created).utf8)]
        for r in rows { arguments += [Array(r.key.utf8), Array(r.target.utf8)] }
        let reply = try timed("output_add", on: adds) { () throws(RedisError) in
            try Self.answered(RedisDeliveryScripts.add.run(on: adds, keys: keys, arguments: arguments))
        }
        guard case .array(let ids) = reply, ids.count == rows.count else { throw OutputStoreError("the add script answered \(reply)") }
        return ids.map { $0.text != nil }
    }

    func initialPending(output: String) -> Int? { nil }

    func read(output: String, cursor: inout DeliveryCursor, limit: Int) throws(OutputStoreError) -> [PendingDelivery] {
        let stream = try ready(output)
        var entries: [RedisStreamEntry] = []
        if let from = cursor.ownEntries {
            // After a restart with the same client_id: its own entries first, at once.
            entries = try timed("output_read", on: connection(output)) { () throws(RedisError) in
                try stream.read(consumer: consumer, from: from, count: limit)
            }
            if entries.count < limit { cursor.ownEntries = nil } else { cursor.ownEntries = entries.last?.id }
        }
        if cursor.ownEntries == nil, entries.count < limit {
            let room = limit - entries.count
            entries += try timed("output_read", on: connection(output)) { () throws(RedisError) in
                try stream.read(consumer: consumer, from: ">", count: room)
            }
        }
        return try undelivered(entries, output: output, stream: stream)
    }

    func finish(_ deliveries: [PendingDelivery], output: String) throws(OutputStoreError) {
        let done = deliveries.filter { $0.entry != nil }
        guard !done.isEmpty else { return }
        let keys = [streamKey(output)] + done.map { markKey(output, key: $0.key, target: $0.target) }
        let arguments = [Self.group, String(Self.markMilliseconds)] + done.compactMap(\.entry)
        _ = try timed("output_ack", on: connection(output)) { () throws(RedisError) in
            try Self.answered(RedisDeliveryScripts.finish.run(on: connection(output), keys: keys,
                                                              arguments: arguments.map { Array($0.utf8) }))
        }
    }

    func upkeep(output: String, held: [PendingDelivery], claimRoom: Int) -> DeliveryUpkeep {
        var result = DeliveryUpkeep()
        do {
            let stream = try ready(output)
            let ids = held.compactMap(\.entry)
            if !ids.isEmpty {
                let reply = try timed("output_claim", on: connection(output)) { () throws(RedisError) in
                    try Self.answered(RedisDeliveryScripts.keep.run(on: connection(output), keys: [stream.key],
                                                                    arguments: ([Self.group, consumer] + ids).map { Array($0.utf8) }))
                }
                guard case .array(let lost) = reply else { throw OutputStoreError("the keep script answered \(reply)") }
                result.lost = Set(lost.compactMap(\.text))
            }
            result.startBefore = Date().timeIntervalSince1970 + claimAfter / 2
            guard claimRoom > 0 else { return result }
            var start = "0-0"
            var claimed: [RedisStreamEntry] = []
            let mine = Set(ids)
            repeat {
                let page = try timed("output_claim", on: connection(output)) { () throws(RedisError) in
                    try stream.autoclaim(consumer: consumer, minIdleMilliseconds: Int(claimAfter * 1000), start: start,
                                         count: claimRoom - claimed.count)
                }
                claimed += page.entries.filter { !mine.contains($0.id) }
                start = page.next
            } while start != "0-0" && claimed.count < claimRoom
            result.claimed = try undelivered(claimed, output: output, stream: stream)
            let due = upkeeps.withLock { n -> Bool in
                n[output, default: 0] += 1
                return n[output, default: 0] % Self.forgetEvery == 1
            }
            if due { _ = try forgetGoneConsumers(output: output, idleMilliseconds: Self.forgetAfterMilliseconds) }
            if !result.claimed.isEmpty {
                logger.warning("output '\(output)': took over \(result.claimed.count) delivery(ies) pending on a replica that stopped answering for \(config.claimAfter.text)")
            }
        } catch {
            result.unreachable = true
        }
        return result
    }

    /// Forgets the consumers of `output`'s group other than this one that have nothing pending
    /// and have not read for `idleMilliseconds`; returns how many.
    func forgetGoneConsumers(output: String, idleMilliseconds: Int) throws(OutputStoreError) -> Int {
        let reply = try timed("output_claim", on: connection(output)) { () throws(RedisError) in
            try Self.answered(RedisDeliveryScripts.forget.run(on: connection(output), keys: [streamKey(output)],
                                                              arguments: [Self.group, consumer, String(idleMilliseconds)].map { Array($0.utf8) }))
        }
        let gone = Int(reply.integer ?? 0)
        if gone > 0 { logger.info("output '\(output)': forgot \(gone) replica(s) gone from the Redis consumer group (nothing pending, idle a day)") }
        return gone
    }

    func overdue(output: String, handedBefore: Double) -> [PendingDelivery] { [] }
    func markFellBack(_ deliveries: [PendingDelivery]) {}
    func oldestUnfallen(output: String) -> Double? { nil }

    // MARK: Helpers

    private func connection(_ output: String) -> RedisConnection { connections[output] ?? adds }

    /// The stream of `output`, its group made first when not known to exist.
    private func ready(_ output: String) throws(OutputStoreError) -> RedisStream {
        let stream = RedisStream(connection: connection(output), key: streamKey(output), group: Self.group)
        if !groups.withLock({ $0.contains(output) }) {
            try timed("output_read", on: connection(output)) { () throws(RedisError) in try stream.ensureGroup() }
            groups.withLock { _ = $0.insert(output) }
        }
        return stream
    }

    /// `entries` as deliveries, without those already finished (a claimed entry whose
    /// delivery succeeded before its replica could acknowledge it, or an entry deleted): those
    /// are acknowledged here, never sent.
    private func undelivered(_ entries: [RedisStreamEntry], output: String, stream: RedisStream) throws(OutputStoreError) -> [PendingDelivery] {
        guard !entries.isEmpty else { return [] }
        let all = entries.map { e in
            PendingDelivery(row: nil, entry: e.id, key: e.text("k") ?? "", target: e.text("t") ?? "", item: e.fields?["i"] ?? [],
                            files: (e.text("f") ?? "").split(separator: "\n").map(String.init),
                            created: e.text("c").flatMap(Double.init) ?? Date().timeIntervalSince1970)
        }
        let marks = try timed("output_read", on: connection(output)) { () throws(RedisError) in
            try stream.checked(connection(output).command(["MGET"] + all.map { markKey(output, key: $0.key, target: $0.target) }))
        }
        guard case .array(let values) = marks, values.count == all.count else { return all }
        var open: [PendingDelivery] = []
        var finished: [PendingDelivery] = []
        for ((d, mark), e) in zip(zip(all, values), entries) {
            if mark.text == "d" || e.fields == nil { finished.append(d) } else { open.append(d) }
        }
        if !finished.isEmpty {
            logger.info("output '\(output)': \(finished.count) delivery(ies) already finished by another replica; acknowledged without sending")
            try finish(finished, output: output)
        }
        return open
    }

    /// `reply`, or its error thrown (a script the server refused or that raised an error).
    private static func answered(_ reply: RedisReply) throws(RedisError) -> RedisReply {
        if case .error(let why) = reply { throw RedisError(description: why) }
        return reply
    }

    /// Runs one Redis step as operation `op` on `connection`, recording it in `health` (which
    /// logs an outage once, and its end). A
    /// step that failed on a connection that was open (the server restarted since: the server
    /// never saw the command) is tried once more on a new one. A `NOGROUP` error (the stream
    /// was deleted, or the server restarted empty) forgets the groups.
    private func timed<T>(_ op: String, on connection: RedisConnection, _ body: () throws(RedisError) -> T) throws(OutputStoreError) -> T {
        let started = ContinuousClock.now
        do {
            let wasOpen = connection.isConnected
            let value: T
            do { value = try body() } catch where wasOpen && !connection.isConnected { value = try body() }
            health.succeeded(op, seconds: (ContinuousClock.now - started).seconds)
            return value
        } catch {
            if error.description.contains("NOGROUP") { groups.withLock { $0.removeAll() } }
            // The health logs an outage once, and its end, whoever notices it.
            health.failed(op, why: error.description)
            throw OutputStoreError(error.description)
        }
    }
}
