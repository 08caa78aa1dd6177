import Foundation
import Testing
@testable import PushBridge

/// The stats topic on a real broker: every outcome and side counter of docs/metrics.md,
/// per topic, per route and in total, for messages sent by the test; and the invariant
/// `received == Σ outcomes + in_flight` in every snapshot the bridge publishes.
@Suite("Monitoring integration: stats topic counts")
struct StatsTopicCountTests {
    /// `child`: the extension's `command:` (`FakeExtensionChild`: `hang` never answers, `garbage`
    /// answers a non-object content, `modify` changes the body, anything else comes back unchanged).
    static func config(_ broker: TestBroker, clientID: String, prefix p: String, child: String, http: Int) -> String {
        brokerSection(broker, clientID: clientID) + """

        entitlements: [com.apple.developer.usernotifications.filtering]
        routes:
          - {name: plain, topic: "\(p)/plain/#", mutable_content: false, alert: {title: Plain, body: "{{ payload.msg }}"}}
          - {name: ext, topic: "\(p)/ext/#", mutable_content: true, alert: {title: Ext, body: "{{ payload.msg }}"}}
          - {name: bg, topic: "\(p)/bg/#", push_type: background}
          - {name: strict, topic: "\(p)/strict/#", input: apns}
          - {name: collapse, topic: "\(p)/collapse/#", mutable_content: false, collapse_id: "{{ payload.cid }}",
             alert: {body: collapsing}}
          - {name: timed, topic: "\(p)/timed/#", mutable_content: false, expiration: "{{ payload.exp }}",
             alert: {body: expiring}}
        extension:
          time_limit: 3s        # generous: a loaded machine starts the python child slowly
          expire_grace: 500ms
          filters:
            - {name: drop-marked, suppress: "payload.drop == true", routes: [ext]}
          command: \(child)
        display:
          topic: "display/{{ topic }}"
          qos: 1
        dead_letter:
          topic: "dead/{{ topic }}"
        monitoring:
          interval: 200ms
          http: "127.0.0.1:\(http)"
        """
    }

    @Test("every outcome is counted per topic, per route and in total; the invariant holds in every snapshot")
    func outcomesAreCounted() async throws {
        let broker = try TestBroker()
        let p = uniqueName("mt")
        let clientID = uniqueName("bridge")
        let child = try FakeExtensionChild.yaml()

        // A subscription left in the bridge's persistent session by an earlier run (e.g. a
        // route since removed): the broker still delivers it, and no route matches.
        var stale = TestClient.options(broker, subscriptions: [MQTTSubscription(filter: "\(p)/stale/#", qos: 1, noLocal: false)],
                                       cleanStart: false)
        stale.clientID = clientID
        let staleClient = try TestClient(options: stale)
        staleClient.start()
        try await staleClient.waitUntilSubscribed()
        staleClient.stop(flushTimeout: .zero)

        let watcher = try await StatsWatcher.start(broker)
        defer { watcher.stop() }
        let outputs = try await TestClient.connected(to: broker, subscriptions: [
            MQTTSubscription(filter: "display/\(p)/#", qos: 1, noLocal: false),
            MQTTSubscription(filter: "dead/\(p)/#", qos: 1, noLocal: false),
        ])
        let http = try LoopbackPorts.free()
        let bridge = try InProcessBridge.start(yaml: Self.config(broker, clientID: clientID, prefix: p, child: child,
                                                                  http: http))
        try await waitUntilReady(port: http)

        let sender = try await TestClient.connected(to: broker)
        for _ in 0..<3 { try sender.publish("\(p)/plain/a", #"{"msg":"hello"}"#) }
        try sender.publish("\(p)/plain/a", #"{"msg":"echo"}"#,
                           userProperties: [(name: DisplayRenderer.hopProperty, value: clientID)])
        for _ in 0..<2 { try sender.publish("\(p)/ext/a", #"{"msg":"drop me","drop":true}"#) }
        try sender.publish("\(p)/ext/b", #"{"msg":"modify"}"#)
        try sender.publish("\(p)/ext/b", #"{"msg":"keep"}"#)
        try sender.publish("\(p)/ext/c", #"{"msg":"hang"}"#)
        try sender.publish("\(p)/ext/d", #"{"msg":"garbage"}"#)
        for _ in 0..<2 { try sender.publish("\(p)/bg/a", #"{"level":3}"#) }
        for _ in 0..<2 { try sender.publish("\(p)/strict/a", "not an APNs body") }
        try sender.publish("\(p)/collapse/a", "{\"cid\":\"\(String(repeating: "c", count: 65))\"}")
        try sender.publish("\(p)/timed/a", #"{"exp":1000}"#)
        try sender.publish("\(p)/stale/a", "left over")

        let last = try await watcher.waitFor("all 16 messages finished") {
            count($0, "totals", "received") == 16 && count($0, "in_flight") == 0
        }
        try await bridge.stop()

        // Totals: every counter, exactly.
        let expectedTotals = ["received": 16, "delivered": 7, "suppressed": 2, "not_displayed": 2, "rejected": 3,
                              "expired": 1, "unrouted": 1, "modified": 1, "timeout": 1, "extension_failed": 1,
                              "loop_dropped": 1]
        for (name, value) in expectedTotals {
            #expect(count(last, "totals", name) == value, "totals.\(name) in \(last.jsonText)")
        }
        #expect(count(last, "totals", "rejected_by_reason", "InvalidPayload") == 2)
        #expect(count(last, "totals", "rejected_by_reason", "BadCollapseId") == 1)

        // Per topic: what was sent there and nothing else.
        let expectedTopics: [String: [String: Int]] = [
            "plain/a": ["received": 3, "delivered": 3, "loop_dropped": 1],
            "ext/a": ["received": 2, "suppressed": 2],
            "ext/b": ["received": 2, "delivered": 2, "modified": 1],
            "ext/c": ["received": 1, "delivered": 1, "timeout": 1],
            "ext/d": ["received": 1, "delivered": 1, "extension_failed": 1],
            "bg/a": ["received": 2, "not_displayed": 2],
            "strict/a": ["received": 2, "rejected": 2],
            "collapse/a": ["received": 1, "rejected": 1],
            "timed/a": ["received": 1, "expired": 1],
            "stale/a": ["received": 1, "unrouted": 1],
        ]
        #expect(keys(last["topics"]) == Set(expectedTopics.keys.map { "\(p)/\($0)" }))
        for (topic, expected) in expectedTopics {
            Self.expectCounters(last["topics"]?["\(p)/\(topic)"], expected, "topic \(topic)")
        }
        #expect(count(last, "topics", "\(p)/strict/a", "rejected_by_reason", "InvalidPayload") == 2)
        #expect(count(last, "topics", "\(p)/collapse/a", "rejected_by_reason", "BadCollapseId") == 1)
        #expect(last["topics"]?["\(p)/plain/a"]?["last_seen"]?.stringValue?.hasSuffix("Z") == true)

        // Per route: the unrouted message and the loop-dropped one belong to none.
        let expectedRoutes: [String: [String: Int]] = [
            "plain": ["received": 3, "delivered": 3],
            "ext": ["received": 6, "delivered": 4, "suppressed": 2, "modified": 1, "timeout": 1, "extension_failed": 1],
            "bg": ["received": 2, "not_displayed": 2],
            "strict": ["received": 2, "rejected": 2],
            "collapse": ["received": 1, "rejected": 1],
            "timed": ["received": 1, "expired": 1],
        ]
        #expect(keys(last["routes"]) == Set(expectedRoutes.keys))
        for (route, expected) in expectedRoutes { Self.expectCounters(last["routes"]?[route], expected, "route \(route)") }
        #expect(last["filters"] == .object(["drop-marked": .object(["suppressed": .int(2)])]))

        // The invariant, in every snapshot observed (some taken while the hung request was open).
        let all = try watcher.documents()
        #expect(all.count >= 3)
        for snapshot in all {
            let problems = invariantViolations(snapshot)
            #expect(problems.isEmpty, "\(problems) in \(snapshot.jsonText)")
        }
        #expect(all.contains { count($0, "in_flight") > 0 }, "no snapshot caught a message in flight")

        // What was published agrees: one display message per delivery, one dead letter per rejection.
        let published = try await outputs.waitForMessages(count: 10)
        #expect(published.filter { $0.topic.hasPrefix("display/") }.count == 7)
        #expect(published.filter { $0.topic.hasPrefix("dead/") }.count == 3)
        let bodies = try published.filter { $0.topic == "display/\(p)/ext/b" }.map { try decodeJSON($0.payload)["body"] }
        #expect(bodies == [.string("modified by the child"), .string("keep")])
    }

    /// Every counter of `expected` matches, and every other number counter is absent or 0.
    static func expectCounters(_ actual: JSONValue?, _ expected: [String: Int], _ what: String) {
        for name in StatsCounter.allCases.map(\.rawValue) {
            #expect(count(actual, name) == expected[name, default: 0], "\(what): \(name) in \(actual?.jsonText ?? "nil")")
        }
    }
}
