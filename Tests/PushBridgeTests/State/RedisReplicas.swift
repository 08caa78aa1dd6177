import Foundation
import Synchronization
@testable import PushBridge

/// Real `pushbridge run` replicas on one test broker and one redis-server (`state.redis`),
/// each with its own client id, persistent session and journal: the harness of the State
/// flow tests. Every key of theirs in Redis starts with `prefix`. `deinit` SIGKILLs what still runs.
final class RedisReplicas: Sendable {
    let broker: TestBroker
    let redis: TestRedis
    /// Topics and Redis keys start with it (unique per set).
    let prefix: String
    let directory: String
    private let running = Mutex<[Int: ManagedProcess]>([:])
    private let files = Mutex<[Int: String]>([:])

    init(_ name: String) throws {
        broker = try ScaleOutTests.broker()
        redis = try TestRedis()
        prefix = uniqueName(name)
        directory = try makeTempDirectory()
    }

    deinit {
        for p in running.withLock({ Array($0.values) }) { p.send(SIGKILL) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A route `name` on `topic` (shared by the group) whose JSON messages carry a number `n`,
    /// behind a `dedupe` on that number: every number should be notified exactly once.
    static func numbered(_ name: String, topic: String) -> String {
        """
        routes:
          - name: \(name)
            topic: "\(topic)"
            qos: 1
            share: pushbridge
            input: json
            alert: {body: "{{ payload.n }}"}
        extension:
          filters:
            - name: once
              dedupe: {key: "{{ payload.n }}", window: 10m}
        display: {topic: "display/{{ topic }}", qos: 1}

        """
    }

    /// Replica `i`'s file: its broker section, `body` (routes, filters, display, monitoring…),
    /// its journal and `state.redis` (with `redis` added to that mapping, e.g. `claim_after: 5s`).
    func config(_ i: Int, _ body: String, redis extra: String = "") -> String {
        brokerSection(broker, clientID: "\(prefix)-\(i)", extra: "clean_start: false\nsession_expiry: 1h") + body
            + "\njournal: {path: \(directory)/journal-\(i), fsync: never}\n"
            + "state:\n  redis: {url: \"redis://127.0.0.1:\(self.redis.port)/0\", prefix: \"\(prefix):\"\(extra.isEmpty ? "" : ", " + extra)}\n"
    }

    /// Writes replica `i`'s file and starts it (see `config`); waits for its `subscriptions`.
    func start(_ i: Int, _ body: String, redis extra: String = "", subscriptions: Int = 1) async throws {
        let file = try writeTempFile(config(i, body, redis: extra), name: "\(prefix)-\(i).yml")
        files.withLock { $0[i] = file }
        try await restart(i, subscriptions: subscriptions)
    }

    /// Starts replica `i` again from its file.
    func restart(_ i: Int, subscriptions: Int = 1) async throws {
        guard let file = files.withLock({ $0[i] }) else { return }
        let p = try await PushbridgeBinary.start(configFile: file, broker: broker, subscriptions: subscriptions)
        running.withLock { $0[i] = p }
    }

    /// Replica `i`'s config file.
    func file(_ i: Int) -> String { files.withLock { $0[i] ?? "" } }

    /// Replica `i`'s process, while it runs.
    func process(_ i: Int) -> ManagedProcess? { running.withLock { $0[i] } }

    /// SIGKILLs replica `i` and waits until it is gone.
    func kill(_ i: Int) async {
        guard let p = running.withLock({ $0.removeValue(forKey: i) }) else { return }
        p.send(SIGKILL)
        _ = await p.waitForExit(timeout: .seconds(10))
    }

    /// SIGTERMs every replica (each drains) and returns their results.
    func stopAll() async -> [ProcessResult] {
        var results: [ProcessResult] = []
        for p in running.withLock({ r in defer { r = [:] }; return r.sorted { $0.key < $1.key }.map(\.value) }) {
            results.append(await p.terminate(grace: .seconds(20)))
        }
        return results
    }
}
