import Foundation
import Testing
@testable import PushBridge

/// Declarative filters end to end, with and without the filtering entitlement.
@Suite("Integration: declarative filters")
struct FilterFlowTests {
    static let entitlement = "entitlements: [com.apple.developer.usernotifications.filtering]"

    /// A bridge with one json route (`title: Alert`, body from `payload.msg`) and `filters`.
    func start(_ s: Scenario, entitled: Bool = true, filters: String,
               alertExtra: String = "") throws -> InProcessBridge {
        try InProcessBridge.start(yaml: s.yaml("""
            \(entitled ? Self.entitlement : "")
            routes:
              - name: r
                topic: \(s.ns)/in/#
                alert: {title: Alert, body: "{{ payload.msg }}"\(alertExtra)}
            extension:
              filters:
            \(filters.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
            """))
    }

    /// Publishes `payloads` on `<ns>/in/<topic>`, waits until all are decided, returns the displayed bodies.
    func send(_ s: Scenario, _ topic: String, _ payloads: [String]) async throws -> (bodies: [String], stats: JSONValue) {
        try await s.waitUntilOnline()
        for p in payloads { try s.publish(topic, p) }
        let stats = try await s.waitForStats("\(payloads.count) decided") {
            total($0, "received") == Int64(payloads.count) && $0["in_flight"] == .int(0)
        }
        let delivered = Int(total(stats, "delivered"))
        let shown = try await s.waitFor(s.display(topic), count: delivered)
        return (try shown.map { jsonString(try JSONValue.parse($0.payload)["body"]) }, stats)
    }

    @Test("suppress with the entitlement: suppressed and counted by filter name")
    func suppressEntitled() async throws {
        let s = try await Scenario.start()
        let bridge = try start(s, filters: "- name: drop-debug\n  suppress: 'payload.level == \"debug\"'")
        let (bodies, stats) = try await send(s, "a", [#"{"msg":"d","level":"debug"}"#, #"{"msg":"i","level":"info"}"#])
        #expect(bodies == ["i"])
        #expect(total(stats, "suppressed") == 1)
        #expect(stats["filters"]?["drop-debug"]?["suppressed"] == .int(1))
        try await bridge.stop()
    }

    @Test("suppress without the entitlement: the original is delivered")
    func suppressNotEntitled() async throws {
        let s = try await Scenario.start()
        let bridge = try start(s, entitled: false, filters: "- name: drop-debug\n  suppress: 'payload.level == \"debug\"'")
        let (bodies, stats) = try await send(s, "a", [#"{"msg":"d","level":"debug"}"#, #"{"msg":"i","level":"info"}"#])
        #expect(bodies == ["d", "i"])
        #expect(total(stats, "suppressed") == 0)
        let first = try JSONValue.parse(s.messages(on: s.display("a"))[0].payload)
        #expect(first["title"] == .string("Alert") && first["modified"] == .bool(false))
        try await bridge.stop()
    }

    @Test("set rewrites the content; the display says modified")
    func set() async throws {
        let s = try await Scenario.start()
        let bridge = try start(s, filters: "- set: {title: \"{{ payload.room }}: {{ content.title }}\"}")
        _ = try await send(s, "a", [#"{"msg":"m","room":"kitchen"}"#])
        let shown = try JSONValue.parse(s.messages(on: s.display("a"))[0].payload)
        #expect(shown["title"] == .string("kitchen: Alert"))
        #expect(shown["modified"] == .bool(true))
        try await bridge.stop()
    }

    @Test("dedupe drops repeats of a key inside the window")
    func dedupe() async throws {
        let s = try await Scenario.start()
        let bridge = try start(s, filters: "- name: same-state\n  dedupe: {key: \"{{ topic }}/{{ payload.msg }}\", window: 10m}")
        let (bodies, stats) = try await send(s, "a", ["on", "on", "off", "on", "off", "up"].map { #"{"msg":"\#($0)"}"# })
        #expect(bodies == ["on", "off", "up"])
        #expect(stats["filters"]?["same-state"]?["suppressed"] == .int(3))
        try await bridge.stop()
    }

    @Test("rate_limit lets max through per window")
    func rateLimit() async throws {
        let s = try await Scenario.start()
        let bridge = try start(s, filters: "- rate_limit: {key: \"{{ topic }}\", max: 2, window: 10m}")
        let (bodies, stats) = try await send(s, "a", (1...5).map { #"{"msg":"m\#($0)"}"# })
        #expect(bodies == ["m1", "m2"])
        #expect(total(stats, "suppressed") == 3)
        try await bridge.stop()
    }

    @Test("quiet_hours (a window around now) suppresses, except what `unless` lets through")
    func quietHours() async throws {
        let s = try await Scenario.start()
        // A two-hour window centred on now (UTC): the test passes at any time of day.
        let minute = QuietHours.minuteOfDay(unixSeconds: Date().timeIntervalSince1970, in: TimeZone(identifier: "UTC")!)
        func hhmm(_ m: Int) -> String {
            let m = (m + 1440) % 1440
            return String(format: "%02d:%02d", m / 60, m % 60)
        }
        let bridge = try start(s, filters: """
            - name: night
              quiet_hours: {from: "\(hhmm(minute - 60))", to: "\(hhmm(minute + 60))", timezone: UTC,
                            unless: 'content.interruption_level in ["time-sensitive", "critical"]'}
            """, alertExtra: ", interruption_level: \"{{ payload.level }}\"")
        let (bodies, stats) = try await send(s, "a", [#"{"msg":"quiet","level":"active"}"#, #"{"msg":"loud","level":"critical"}"#,
                                                      #"{"msg":"plain"}"#])
        #expect(bodies == ["loud"])
        #expect(stats["filters"]?["night"]?["suppressed"] == .int(2))
        try await bridge.stop()
    }

    @Test("when: and routes: limit where a filter applies")
    func whenAndRoutes() async throws {
        let s = try await Scenario.start()
        let bridge = try InProcessBridge.start(yaml: s.yaml("""
            \(Self.entitlement)
            routes:
              - name: one
                topic: \(s.ns)/in/one
                alert: {body: "{{ payload.msg }}"}
              - name: two
                topic: \(s.ns)/in/two
                alert: {body: "{{ payload.msg }}"}
            extension:
              filters:
                - name: only-one
                  suppress: 'true'
                  when: 'payload.drop == true'
                  routes: [one]
            """))
        try await s.waitUntilOnline()
        try s.publish("one", #"{"msg":"1a","drop":true}"#)
        try s.publish("one", #"{"msg":"1b"}"#)
        try s.publish("two", #"{"msg":"2a","drop":true}"#)
        try await s.waitForStats("3 decided") { total($0, "received") == 3 && $0["in_flight"] == .int(0) }
        #expect(try await s.waitFor(s.display("one")).map { jsonString(try JSONValue.parse($0.payload)["body"]) } == ["1b"])
        #expect(try await s.waitFor(s.display("two")).map { jsonString(try JSONValue.parse($0.payload)["body"]) } == ["2a"])
        try await bridge.stop()
    }
}
