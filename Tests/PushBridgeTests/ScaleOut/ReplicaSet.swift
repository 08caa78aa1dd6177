import Foundation
import Synchronization
@testable import PushBridge

/// Three (or N) real `pushbridge run` processes on one test broker, as the compose `scale`
/// profile runs them: either in one shared-subscription group (`share:`) or partitioned
/// (`partition:`), each with its own client id, journal and stats topic.
final class ReplicaSet: Sendable {
    /// How the replicas split the traffic.
    enum Mode: String, Sendable {
        case share, partition
    }

    let broker: TestBroker
    let mode: Mode
    let count: Int
    /// Topics in use start with this (unique per set).
    let prefix: String
    /// Client id of replica `i` is `<base>-<i>`.
    let clientBase: String
    /// One config file per replica (from `writeTempFile`).
    let configs: [String]
    /// The replicas' journals.
    let directory: String
    private let processes: Mutex<[ManagedProcess?]>

    /// Writes the configs. Routes: `<prefix>/stream/+` (text, body = the payload) and
    /// `<prefix>/report/+` (json) behind a topic-keyed `dedupe`; display
    /// `display/{{ topic }}` at QoS 1; the journal on; the stats every second on
    /// `<prefix>/stats/<i>`.
    /// `redis`: a `state.redis` URL every replica keeps its filter memory at (with `share`).
    init(broker: TestBroker, mode: Mode, count: Int = 3, redis: String? = nil) throws {
        self.broker = broker
        self.mode = mode
        self.count = count
        prefix = uniqueName("scale")
        clientBase = uniqueName("replica")
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(uniqueName("pushbridge-replicas")).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var configs: [String] = []
        for i in 0..<count {
            configs.append(try writeTempFile(Self.config(broker: broker, mode: mode, index: i, count: count, prefix: prefix,
                                                         clientID: "\(clientBase)-\(i)", journal: "\(directory)/journal-\(i)",
                                                         redis: redis),
                                             name: "bridge-\(i).yml"))
        }
        self.configs = configs
        processes = Mutex(Array(repeating: nil, count: count))
    }

    deinit {
        for p in processes.withLock({ $0 }) { p?.send(SIGKILL) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    static func config(broker: TestBroker, mode: Mode, index: Int, count: Int, prefix: String,
                       clientID: String, journal: String, redis: String? = nil) -> String {
        let share = mode == .share ? "\n    share: pushbridge" : ""
        var text = brokerSection(broker, clientID: clientID, extra: "clean_start: false\nsession_expiry: 1h") + """
            entitlements: [com.apple.developer.usernotifications.filtering]
            routes:
              - name: stream
                topic: "\(prefix)/stream/+"
                qos: 1\(share)
                input: text
                mutable_content: false
                alert: {body: "{{ raw }}"}
              - name: report
                topic: "\(prefix)/report/+"
                qos: 1\(share)
                input: json
                alert: {title: "{{ levels[2] }}", body: "{{ payload.state }}"}
            extension:
              filters:
                - name: once-per-topic
                  dedupe: {key: "{{ topic }}", window: 10m}
                  routes: [report]
            display:
              topic: "display/{{ topic }}"
              qos: 1
            journal:
              path: \(journal)
              fsync: never
            monitoring:
              status_topic: null
              stats_topic: "\(prefix)/stats/\(index)"
              interval: 1s

            """
        if mode == .partition { text += "partition: {index: \(index), count: \(count)}\n" }
        if let redis { text += "state:\n  redis: {url: \"\(redis)\", prefix: \"\(prefix):\"}\n" }
        return text
    }

    /// Starts replica `i` and waits until its two subscriptions are in place on the broker.
    func start(_ i: Int) async throws {
        let p = try await PushbridgeBinary.start(configFile: configs[i], broker: broker, subscriptions: 2)
        processes.withLock { $0[i] = p }
    }

    /// Starts every replica.
    func startAll() async throws {
        for i in 0..<count { try await start(i) }
    }

    /// The running process of replica `i`.
    func process(_ i: Int) -> ManagedProcess? { processes.withLock { $0[i] } }

    /// SIGKILL replica `i` and wait until it is gone.
    func kill(_ i: Int) async {
        guard let p = process(i) else { return }
        p.send(SIGKILL)
        _ = await p.waitForExit(timeout: .seconds(10))
        processes.withLock { $0[i] = nil }
    }

    /// CPU seconds (user + system) each running replica has used so far, from /proc.
    func cpuSeconds() -> [Double] {
        (0..<count).compactMap { i in
            guard let pid = process(i)?.pid,
                  let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            // Fields after the command name: state is field 3, utime 14, stime 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
            return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }
    }

    /// SIGTERM every replica (each publishes its last stats) and returns their exit results.
    func stopAll() async -> [ProcessResult] {
        var results: [ProcessResult] = []
        for i in 0..<count {
            if let p = process(i) { results.append(await p.terminate(grace: .seconds(20))) }
        }
        processes.withLock { $0 = Array(repeating: nil, count: count) }
        return results
    }

    /// Each replica's retained stats snapshot (after `stopAll`, its last one).
    func retainedStats() async throws -> [JSONValue] {
        let reader = try await TestClient.connected(
            to: broker, subscriptions: [MQTTSubscription(filter: "\(prefix)/stats/+", qos: 1)])
        defer { reader.stop(flushTimeout: .zero) }
        let messages = try await reader.waitForMessages(count: count, timeout: .seconds(10))
        return try messages.sorted { $0.topic < $1.topic }.map { try JSONValue.parse($0.payload) }
    }

    /// The stream topic number `n`.
    func streamTopic(_ n: Int) -> String { "\(prefix)/stream/t\(n)" }
    /// The report topic `name`.
    func reportTopic(_ name: String) -> String { "\(prefix)/report/\(name)" }
}

/// What reached the display topics, per source topic, in arrival order.
struct DisplayLog {
    /// Source topic → (sequence number from the body, id, arrival time) in arrival order.
    var byTopic: [String: [(n: Int, id: String, at: Double)]] = [:]
    /// Display messages seen in all.
    var total = 0

    /// `<source> <number>` of a `display/<source>` message whose body is a number: what
    /// `distinct` counts (for `TestClient.waitForDistinct`).
    static func key(_ m: InboundMessage) -> String? {
        guard m.topic.hasPrefix("display/"), let (body, _) = FaultSupport.bodyAndID(m), let n = Int(body) else { return nil }
        return "\(m.topic.dropFirst("display/".count)) \(n)"
    }

    /// Reads the `display/<source>` messages whose body is a number.
    init(_ messages: [InboundMessage]) {
        for m in messages {
            guard m.topic.hasPrefix("display/"), let (body, id) = FaultSupport.bodyAndID(m), let n = Int(body) else { continue }
            byTopic[String(m.topic.dropFirst("display/".count)), default: []].append((n, id, m.receivedAt))
            total += 1
        }
    }

    /// Messages that arrived after one with a higher number on the same topic.
    var inversions: Int {
        byTopic.values.reduce(0) { sum, seq in
            var highest = Int.min
            var count = 0
            for item in seq {
                if item.n < highest { count += 1 } else { highest = item.n }
            }
            return sum + count
        }
    }

    /// Display messages beyond the first of each (topic, number).
    var duplicates: Int { total - distinct }

    /// Distinct (topic, number) pairs seen.
    var distinct: Int { byTopic.values.reduce(0) { $0 + Set($1.map(\.n)).count } }

    /// `true` when topic `topic` shows exactly 0..<count.
    func complete(_ topic: String, count: Int) -> Bool {
        Set(byTopic[topic, default: []].map(\.n)) == Set(0..<count)
    }
}

/// Publishes `perTopic` numbered QoS 1 messages on each of `topics`, interleaved
/// (message k of every topic before message k+1 of any), keeping at most 500 unacknowledged.
/// `pause` is slept after every `batch` messages (a paced stream); returns each publish's time.
@discardableResult
func publishStream(_ publisher: TestClient, topics: [String], perTopic: Int, batch: Int = 100,
                   pause: Duration = .zero) async throws -> [(topic: String, n: Int, at: Double)] {
    var sent: [(topic: String, n: Int, at: Double)] = []
    sent.reserveCapacity(topics.count * perTopic)
    for n in 0..<perTopic {
        for topic in topics {
            try publisher.publish(topic, "\(n)", qos: 1)
            sent.append((topic, n, Date().timeIntervalSince1970))
            if sent.count % batch == 0 {
                if pause > .zero { try await Task.sleep(for: pause) }
                while publisher.client.unacknowledgedCount > 500 { try await Task.sleep(for: .milliseconds(2)) }
            }
        }
    }
    try await publisher.waitUntilAcknowledged("publisher flushed", timeout: .seconds(60))
    return sent
}
