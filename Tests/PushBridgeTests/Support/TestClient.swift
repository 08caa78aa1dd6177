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

    /// Holds the record so the handlers can capture it (a `Mutex` itself cannot be captured).
    private final class RecordBox: Sendable {
        let record = Mutex(Record())
    }

    let client: MQTTClient
    private let box: RecordBox

    /// A client (not started) for `broker`, with a unique client id unless one is given.
    init(broker: TestBroker? = nil, options: MQTTClientOptions) throws {
        let box = RecordBox()
        self.box = box
        var options = options
        if let broker, options.port == 1883 { options.port = broker.port }
        client = try MQTTClient(options: options, handlers: MQTTClientHandlers(
            onMessage: { m in box.record.withLock { $0.messages.append(m) } },
            onPublished: { mid in box.record.withLock { $0.published.append(mid) } },
            onConnection: { e in box.record.withLock { $0.events.append(e) } },
            log: { level, line in box.record.withLock { $0.logs.append((level, line)) } }))
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

    func start() { client.start() }

    /// Stops the client (flushes QoS>0 publishes for up to `flushTimeout`).
    func stop(flushTimeout: Duration = .seconds(5)) { client.stop(flushTimeout: flushTimeout) }

    var messages: [InboundMessage] { box.record.withLock { $0.messages } }
    var events: [ConnectionEvent] { box.record.withLock { $0.events } }
    var publishedMids: [Int32] { box.record.withLock { $0.published } }
    var logLines: [String] { box.record.withLock { $0.logs.map { "\($0.0.rawValue) \($0.1)" } } }

    /// Publishes (see `MQTTClient.publish`).
    @discardableResult
    func publish(_ topic: String, _ text: String, qos: Int = 1, retain: Bool = false,
                 userProperties: [(name: String, value: String)] = []) throws -> Int32 {
        try client.publish(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain,
                           userProperties: userProperties)
    }

    /// Waits for at least `count` messages in total and returns them all.
    func waitForMessages(count: Int, timeout: Duration = .seconds(10)) async throws -> [InboundMessage] {
        try await eventually("\(count) message(s), have \(messages.count)", timeout: timeout) { messages.count >= count }
        return messages
    }

    func waitUntilConnected(timeout: Duration = .seconds(10)) async throws {
        try await eventually("connection; log: \(logLines)", timeout: timeout) { client.isConnected }
    }

    func waitUntilSubscribed(timeout: Duration = .seconds(10)) async throws {
        try await eventually("SUBACK; log: \(logLines)", timeout: timeout) { client.isSubscribed }
    }

    /// Waits until an event satisfying `match` has been recorded.
    func waitForEvent(timeout: Duration = .seconds(10), _ match: @escaping (ConnectionEvent) -> Bool) async throws {
        try await eventually("event; have \(events)", timeout: timeout) { events.contains(where: match) }
    }
}

/// A name unique to this process and call: for topics and client ids.
func uniqueName(_ prefix: String) -> String {
    "\(prefix)-\(UUID().uuidString.prefix(13).lowercased())"
}
