import Foundation
import Synchronization
import Testing
@testable import PushBridge

/// One end-to-end scenario: a private broker, a namespace for its topics, and an observer
/// subscribed to the bridge's outputs (`<ns>/out/#`, `<ns>/dead/#`, status and stats).
///
/// Inputs go under `<ns>/in/…`; the display topic is `<ns>/out/{{ topic }}`, so a message
/// from `<ns>/in/a` is displayed on `<ns>/out/<ns>/in/a`.
struct Scenario: Sendable {
    let broker: TestBroker
    let ns: String
    let observer: TestClient
    let version: MQTTProtocolVersion

    /// Starts a broker (with `options`) and an observer on it.
    static func start(_ options: TestBroker.Options = .init(), version: MQTTProtocolVersion = .v5) async throws -> Scenario {
        let broker = try TestBroker(options)
        let ns = uniqueName("it")
        var o = TestClient.options(broker, version: version, subscriptions: [
            MQTTSubscription(filter: "\(ns)/out/#", qos: 1), MQTTSubscription(filter: "\(ns)/dead/#", qos: 1),
            MQTTSubscription(filter: "\(ns)/status", qos: 1), MQTTSubscription(filter: "\(ns)/stats", qos: 0),
        ])
        if let (user, password) = options.users.first { (o.username, o.password) = (user, password) }
        let observer = try TestClient(options: o)
        observer.start()
        try await observer.waitUntilSubscribed()
        return Scenario(broker: broker, ns: ns, observer: observer, version: version)
    }

    /// An input topic: `<ns>/in/<name>`.
    func input(_ name: String) -> String { "\(ns)/in/\(name)" }
    /// The display topic for the input topic `<ns>/in/<name>`.
    func display(_ name: String) -> String { "\(ns)/out/\(ns)/in/\(name)" }
    /// The dead-letter topic for the input topic `<ns>/in/<name>`.
    func dead(_ name: String) -> String { "\(ns)/dead/\(ns)/in/\(name)" }
    var statusTopic: String { "\(ns)/status" }

    /// A `bridge.yml`: the broker section for this scenario, monitoring on `<ns>/status` and
    /// `<ns>/stats` every 200 ms, the display on `<ns>/out/{{ topic }}`, the dead letter on
    /// `<ns>/dead/{{ topic }}`, then `body` (routes, extension, entitlements…).
    func yaml(_ body: String, clientID: String = uniqueName("bridge"), brokerExtra: String = "",
              display: String = "format: json", port: Int? = nil) -> String {
        brokerSection(broker, clientID: clientID, port: port, version: version, extra: brokerExtra) + """
        display:
          topic: "\(ns)/out/{{ topic }}"
        \(display.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        dead_letter:
          topic: "\(ns)/dead/{{ topic }}"
        monitoring:
          status_topic: \(ns)/status
          stats_topic: \(ns)/stats
          interval: 200ms
          log_level: debug
        \(body)
        """
    }

    /// Messages the observer has seen on exactly `topic`.
    func messages(on topic: String) -> [InboundMessage] { observer.messages.filter { $0.topic == topic } }

    /// Payload texts seen on `topic`.
    func texts(on topic: String) -> [String] { messages(on: topic).map { String(decoding: $0.payload, as: UTF8.self) } }

    /// Waits until `count` messages arrived on `topic`, and returns them.
    @discardableResult
    func waitFor(_ topic: String, count: Int = 1, timeout: Duration = .seconds(10)) async throws -> [InboundMessage] {
        try await observer.waitForMessages("\(count) message(s) on \(topic)", timeout: timeout) {
            $0.lazy.filter { $0.topic == topic }.count >= count
        }.filter { $0.topic == topic }
    }

    /// Waits until the newest message on `topic` has the payload `text`.
    func waitForLastText(on topic: String, _ text: String, timeout: Duration = .seconds(10)) async throws {
        let payload = Array(text.utf8)
        try await observer.waitForMessages("'\(text)' last on \(topic): \(texts(on: topic))", timeout: timeout) {
            $0.last { $0.topic == topic }?.payload == payload
        }
    }

    /// Restarts the broker (same port and data).
    func restartBroker() throws {
        try broker.restart()
    }

    /// The JSON objects seen on `topic`.
    func json(on topic: String) throws -> [JSONValue] { try messages(on: topic).map { try JSONValue.parse($0.payload) } }

    /// Waits until a live (not retained) `online` is published on the status topic for the `n`-th time:
    /// the bridge sends SUBSCRIBE before it, on the same connection, so its subscriptions are in place.
    func waitUntilOnline(times n: Int = 1, timeout: Duration = .seconds(10)) async throws {
        let topic = statusTopic
        try await observer.waitForMessages("'online' #\(n) on \(topic): \(texts(on: topic))", timeout: timeout) {
            $0.lazy.filter { $0.topic == topic && $0.payload == Array("online".utf8) }.count >= n
        }
    }

    /// The newest stats snapshot's `totals`, when one arrived.
    func totals() -> JSONValue? {
        guard let last = messages(on: "\(ns)/stats").last, let stats = try? JSONValue.parse(last.payload) else { return nil }
        return stats["totals"]
    }

    /// Waits until the newest stats snapshot satisfies `condition` (checked as messages arrive); returns it.
    @discardableResult
    func waitForStats(_ what: String, timeout: Duration = .seconds(10),
                      _ condition: @escaping @Sendable (JSONValue) -> Bool) async throws -> JSONValue {
        let topic = "\(ns)/stats"
        let all = try await observer.waitForMessages("stats: \(what); last totals: \(totals()?.jsonText ?? "none")",
                                                     timeout: timeout) {
            guard let last = $0.last(where: { $0.topic == topic }), let stats = try? JSONValue.parse(last.payload) else { return false }
            return condition(stats)
        }
        return try JSONValue.parse(all.last { $0.topic == topic }!.payload)
    }

    /// Publishes `text` on the input topic `<ns>/in/<name>`.
    func publish(_ name: String, _ text: String, qos: Int = 1,
                 properties: [(name: String, value: String)] = []) throws {
        try observer.publish(input(name), text, qos: qos, userProperties: properties)
    }

    /// Publishes raw bytes on the input topic `<ns>/in/<name>`.
    func publish(_ name: String, bytes: [UInt8], qos: Int = 1) throws {
        _ = try observer.client.publish(topic: input(name), payload: bytes, qos: qos, retain: false, userProperties: [])
    }
}

/// A total counter of a stats snapshot (`stats["totals"][name]`), 0 when absent.
func total(_ stats: JSONValue, _ name: String) -> Int64 {
    if case .int(let n)? = stats["totals"]?[name] { return n }
    return 0
}

/// The string inside `value`, or "" when it is absent or not a string.
func jsonString(_ value: JSONValue?) -> String {
    guard let value, case .string(let s) = value else { return "" }
    return s
}

extension JSONValue {
    /// The element at `index` of an array; `nil` for anything else or past its end.
    subscript(index: Int) -> JSONValue? {
        guard case .array(let list) = self, list.indices.contains(index) else { return nil }
        return list[index]
    }
}
