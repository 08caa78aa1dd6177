import Dispatch
import Foundation
import Synchronization
@testable import PushBridge

/// A subscriber/publisher for tests, built on `MQTTClient`: it records every message,
/// connection event, acknowledged mid and log line.
///
/// `let c = try await TestClient.connected(to: broker, subscriptions: [...])` starts it and
/// waits for the SUBACKs; `stop()` (or `deinit`) ends it.
final class TestClient: Sendable {
    private struct Record: Sendable {

        var messages: [InboundMessage] = []
        var events: [ConnectionEvent] = []
        var published: [Int32] = []
        var logs: [(LogLevel, String)] = []
    }

    let client: MQTTClient
    /// The callbacks `start()` hands the client.
    let handlers: MQTTClientHandlers
    /// Every change wakes the waits (`waitForMessages`, `waitForEvent`): none of them polls.
    private let record: Watched<Record>

    /// A client (not started) for `broker`, with a unique client id unless one is given.
    /// `beforeRecording` runs for each message on the network thread, inside its callback,
    /// before the message is recorded (a test that holds that thread).
    init(broker: TestBroker? = nil, options: MQTTClientOptions,
         beforeRecording: @escaping @Sendable (InboundMessage) -> Void = { _ in }) throws {
        let record = Watched(Record())
        self.record = record
        var options = options
        if let broker, options.port == 1883 { options.port = broker.port }
        client = try MQTTClient(options: options, log: { level, line in record.update { $0.logs.append((level, line)) } })
        handlers = MQTTClientHandlers(
            onMessage: { m in
                beforeRecording(m)
                record.update { $0.messages.append(m) }
            },
            onPublished: { mid in record.update { $0.published.append(mid) } },
            onConnection: { e in record.update { $0.events.append(e) } })
    }

    deinit {
        client.stop(flushTimeout: .zero)
    }

    /// Options for `broker` with a fresh client id and a fast reconnect.
    static func options(_ broker: TestBroker, version: MQTTProtocolVersion = .v5,
                        subscriptions: [MQTTSubscription] = [], cleanStart: Bool = true) -> MQTTClientOptions {
        MQTTClientOptions(host: "127.0.0.1", port: broker.port, clientID: uniqueName("client"),
                          protocolVersion: version, keepalive: .seconds(10), cleanStart: cleanStart,
                          sessionExpiry: cleanStart ? .zero : .seconds(300),
                          reconnectMin: .milliseconds(50), reconnectMax: .milliseconds(400),
                          subscriptions: subscriptions, libraryLogLevel: .warning)
    }

    /// Starts a client on `broker` and waits until it is connected and subscribed.
    static func connected(to broker: TestBroker, version: MQTTProtocolVersion = .v5,
                          subscriptions: [MQTTSubscription] = []) async throws -> TestClient {
        let c = try TestClient(options: options(broker, version: version, subscriptions: subscriptions))
        c.start()
        try await c.waitUntilSubscribed()
        return c
    }

    func start() { client.start(handlers: handlers) }

    /// Stops the client (flushes QoS>0 publishes for up to `flushTimeout`).
    func stop(flushTimeout: Duration = .seconds(5)) { client.stop(flushTimeout: flushTimeout) }

    var messages: [InboundMessage] { record.value.messages }
    var events: [ConnectionEvent] { record.value.events }
    var publishedMids: [Int32] { record.value.published }
    var logLines: [String] { record.value.logs.map { "\($0.0.rawValue) \($0.1)" } }

    /// Publishes (see `MQTTClient.publish`).
    @discardableResult
    func publish(_ topic: String, _ text: String, qos: Int = 1, retain: Bool = false,
                 userProperties: [(name: String, value: String)] = []) throws -> Int32 {
        try client.publish(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain,
                           userProperties: userProperties)
    }

    /// Waits for at least `count` messages in total and returns them all.
    @discardableResult
    func waitForMessages(count: Int, timeout: Duration = .seconds(10)) async throws -> [InboundMessage] {
        try await record.wait(for: "\(count) message(s), have \(messages.count)", timeout: timeout) {
            $0.messages.count >= count
        }.messages
    }

    /// Waits until the messages received so far satisfy `condition` (checked on every
    /// message, on the client's network thread: keep it cheap); returns them all.
    @discardableResult
    func waitForMessages(_ what: @autoclosure () -> String, timeout: Duration = .seconds(10),
                         until condition: @escaping @Sendable ([InboundMessage]) -> Bool) async throws -> [InboundMessage] {
        try await record.wait(for: "\(what()); have \(messages.map(\.topic).suffix(20))", timeout: timeout) {
            condition($0.messages)
        }.messages
    }

    /// Waits until the messages so far give `count` distinct non-nil `key`s; returns the keys.
    /// Each message is keyed once (not once per arrival), so it suits thousands of messages.
    @discardableResult
    func waitForDistinct<Key: Hashable & Sendable>(_ what: @autoclosure () -> String, count: Int, timeout: Duration = .seconds(10),
                                        key: @escaping @Sendable (InboundMessage) -> Key?) async throws -> Set<Key> {
        let scan = DistinctScan<Key>()
        let all = try await record.wait(for: "\(count) distinct \(what()); have \(messages.count) message(s)", timeout: timeout) {
            scan.count(in: $0.messages, key) >= count
        }
        return Set(all.messages.compactMap(key))
    }

    /// How far one `waitForDistinct` has read the messages. `@unchecked Sendable`: only the
    /// wait's condition touches it, and `Watched` runs that under its lock, one call at a time.
    private final class DistinctScan<Key: Hashable & Sendable>: @unchecked Sendable {
        private var next = 0
        private var keys = Set<Key>()

        func count(in messages: [InboundMessage], _ key: (InboundMessage) -> Key?) -> Int {
            while next < messages.count {
                if let k = key(messages[next]) { keys.insert(k) }
                next += 1
            }
            return keys.count
        }
    }

    /// Waits until the client is connected: its last connection event is `.connected` (the
    /// client reports it after it has marked itself connected).
    func waitUntilConnected(timeout: Duration = .seconds(10)) async throws {
        try await record.wait(for: "connection; events \(events); log: \(logLines)", timeout: timeout) {
            if case .connected = $0.events.last { true } else { false }
        }
    }

    /// Waits until the client is connected and the broker has acknowledged every wanted
    /// subscription (`MQTTClient.waitUntilSubscribed`, woken by the SUBACK callbacks; it gives
    /// up when the connection goes, and then this waits for the next connection).
    func waitUntilSubscribed(timeout: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let left = deadline - ContinuousClock.now
            try await waitUntilConnected(timeout: max(left, .zero))
            if await Self.waitUntilSubscribed(client, timeout: left) { return }
            if ContinuousClock.now >= deadline {
                throw ProcessError(description: "timed out after \(timeout) waiting for SUBACK; events \(events); log: \(logLines)")
            }
        }
    }

    /// `client.waitUntilSubscribed(timeout:)` (woken by the SUBACK callbacks; `false` at once
    /// when not connected) on a thread of its own: it blocks, the cooperative pool must not.
    static func waitUntilSubscribed(_ client: MQTTClient, timeout: Duration) async -> Bool {
        await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
            DispatchQueue.global().async { c.resume(returning: client.waitUntilSubscribed(timeout: max(timeout, .zero))) }
        }
    }

    /// Waits until `count` recorded connection events satisfy `match`; returns those.
    @discardableResult
    func waitForEvents(_ what: @autoclosure () -> String, count: Int, timeout: Duration = .seconds(10),
                       matching match: @escaping @Sendable (ConnectionEvent) -> Bool) async throws -> [ConnectionEvent] {
        try await record.wait(for: "\(count)× \(what()); have \(events)", timeout: timeout) {
            $0.events.count(where: match) >= count
        }.events.filter(match)
    }

    /// Waits until the mids reported by `onPublished` so far satisfy `condition`; returns them.
    @discardableResult
    func waitForPublished(_ what: @autoclosure () -> String, timeout: Duration = .seconds(10),
                          until condition: @escaping @Sendable ([Int32]) -> Bool) async throws -> [Int32] {
        try await record.wait(for: "\(what()); have \(publishedMids.count) acknowledged", timeout: timeout) {
            condition($0.published)
        }.published
    }

    /// Waits until `condition` holds for the number of our publishes still unacknowledged
    /// (`MQTTClient.unacknowledgedCount`), checked now and after every acknowledgement
    /// (`onPublished` comes after the count went down). Default: all acknowledged.
    func waitUntilAcknowledged(_ what: @autoclosure () -> String = "every publish acknowledged",
                               timeout: Duration = .seconds(10),
                               until condition: (Int) -> Bool = { $0 == 0 }) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            // Read before the count: an acknowledgement in between is then seen by the wait.
            let reported = record.value.published.count
            let left = client.unacknowledgedCount
            if condition(left) { return }
            // Not checked under the record's lock: the client logs under its own lock.
            try await record.wait(for: "\(what()) (\(left) unacknowledged)", timeout: max(deadline - ContinuousClock.now, .zero)) {
                $0.published.count > reported
            }
        }
    }

    /// Waits until an event satisfying `match` has been recorded.
    func waitForEvent(timeout: Duration = .seconds(10), _ match: @escaping @Sendable (ConnectionEvent) -> Bool) async throws {
        try await record.wait(for: "event; have \(events)", timeout: timeout) { $0.events.contains(where: match) }
    }
}

/// A name unique to this process and call: for topics and client ids.
func uniqueName(_ prefix: String) -> String {
    "\(prefix)-\(UUID().uuidString.prefix(13).lowercased())"
}
