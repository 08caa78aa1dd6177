import Foundation
@testable import PushBridge

/// What tests read from a running bridge's monitoring: the stats topic (`StatsWatcher`),
/// counters in a snapshot, the invariant `received == Σ outcomes + in_flight`, and the HTTP endpoint.

/// Collects every snapshot the bridge publishes on its stats topic.
final class StatsWatcher: Sendable {
    let client: TestClient

    private init(client: TestClient) { self.client = client }

    /// Subscribes to `topic` on `broker` (before the bridge starts, so no snapshot is missed).
    static func start(_ broker: TestBroker, topic: String = "pushbridge/stats") async throws -> StatsWatcher {
        StatsWatcher(client: try await TestClient.connected(
            to: broker, subscriptions: [MQTTSubscription(filter: topic, qos: 1, noLocal: false)]))
    }

    /// Every snapshot so far, decoded with Foundation's JSON decoder (independent of pushbridge).
    func documents() throws -> [JSONValue] {
        try client.messages.map { try decodeJSON($0.payload) }
    }

    /// The newest snapshot.
    func latest() throws -> JSONValue? { try documents().last }

    /// Waits until the newest snapshot satisfies `condition` (checked as each one arrives); returns it.
    @discardableResult
    func waitFor(_ what: String, timeout: Duration = .seconds(20),
                 _ condition: @escaping @Sendable (JSONValue) -> Bool) async throws -> JSONValue {
        let messages = try await client.waitForMessages("\(what); last snapshot: \((try? latest())?.jsonText ?? "none")",
                                                        timeout: timeout) {
            guard let last = $0.last, let snapshot = try? decodeJSON(last.payload) else { return false }
            return condition(snapshot)
        }
        return try decodeJSON(messages.last!.payload)
    }

    func stop() { client.stop(flushTimeout: .zero) }
}

/// The integer at `path` (object keys) inside `value`, 0 when absent (zeros may be left out).
func count(_ value: JSONValue?, _ path: String...) -> Int {
    var v = value
    for key in path { v = v?[key] }
    switch v {
    case .int(let i)?: return Int(i)
    case .double(let d)? where d == d.rounded(): return Int(d)
    default: return 0
    }
}

/// The outcome names (docs/metrics.md, "Outcomes"), whose sum, with `in_flight`, equals `received`.
let outcomeNames = ["delivered", "suppressed", "not_displayed", "rejected", "expired", "unrouted"]

/// Problems with the invariant `received == Σ outcomes + in_flight` in one snapshot:
/// for the totals (with the top-level `in_flight`), every topic and every route.
func invariantViolations(_ snapshot: JSONValue) -> [String] {
    var problems: [String] = []
    func check(_ name: String, _ counters: JSONValue?, inFlight: Int) {
        let received = count(counters, "received")
        let sum = outcomeNames.reduce(0) { $0 + count(counters, $1) }
        if received != sum + inFlight {
            problems.append("\(name): received \(received) != outcomes \(sum) + in_flight \(inFlight)")
        }
    }
    check("totals", snapshot["totals"], inFlight: count(snapshot, "in_flight"))
    for section in ["topics", "routes"] {
        if case .object(let members)? = snapshot[section] {
            for (name, counters) in members { check("\(section).\(name)", counters, inFlight: count(counters, "in_flight")) }
        }
    }
    return problems
}

/// One HTTP/1.0 GET to 127.0.0.1:`port`, answered in full: status code and body.
func httpGet(port: Int, path: String) throws -> (status: Int, body: String) {
    let reply = try rawHTTP("GET", path, port: port)
    return (reply.status, reply.body)
}

/// Waits until `/readyz` on 127.0.0.1:`port` answers 200 (connected and subscribed).
func waitUntilReady(port: Int, timeout: Duration = .seconds(60)) async throws {
    try await eventually("/readyz 200 on port \(port)", timeout: timeout) {
        (try? httpGet(port: port, path: "/readyz"))?.status == 200
    }
}
