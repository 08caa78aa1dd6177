import Foundation
import Testing
@testable import PushBridge

/// Digests on a running bridge, a real mosquitto and a real ntfy server: a storm of
/// Zigbee2MQTT availability reports (`zigbee2mqtt/<device>/availability`,
/// `{"state":"offline"}`) becomes 3 notifications and one summary, with a fake clock for the
/// windows; once with real time.
@Suite("Integration: digests", .serialized)
struct DigestFlowTests {
    static let offline = #"{"state":"offline"}"#
    static let critical = #"{"state":"offline","level":"critical"}"#

    /// An availability report with the device's room (the part of its name before '-') beside it.
    static func offline(in device: String) -> String {
        #"{"state":"offline","room":"\#(device.split(separator: "-")[0])"}"#
    }

    static func yaml(_ s: Scenario, digest: String, ntfy: String? = nil) -> String {
        s.yaml("""
            routes:
              - name: device-offline
                topic: "\(s.ns)/in/z2m/+/availability"
                alert: {title: "{{ levels[-2] }} offline", body: "{{ payload.state }}", interruption_level: "{{ payload.level | default('active') }}"}
                digest: \(digest)
            """ + (ntfy.map { "\noutputs:\n  - name: phones\n    ntfy: {url: \"\($0)\"}" } ?? ""))
    }

    /// The display messages the observer saw, in order, as JSON.
    static func displays(_ s: Scenario) throws -> [JSONValue] {
        try s.observer.messages.filter { $0.topic.hasPrefix("\(s.ns)/out/") }.map { try JSONValue.parse($0.payload) }
    }

    static func titles(_ s: Scenario) throws -> [String] { try displays(s).map { jsonString($0["title"]) } }

    @Test("12 alerts, max 3: 3 one by one and 1 summary (join, length) on the display topic and in ntfy; a critical one is never held; stats")
    func storm() async throws {
        let ntfy = try await NtfyServer.make()
        let s = try await Scenario.start()
        let topic = "pb-\(UUID().uuidString.prefix(8))"
        let clock = FakeWallClock(1_800_000_000)
        let bridge = try InProcessBridge.start(yaml: Self.yaml(s, digest: #"""
            {window: 2m, max: 3, title: "{{ digest.titles | length }} more", body: "{{ digest.titles | join(', ') }}"}
            """#, ntfy: ntfy.url(topic)), clock: clock.stageClock)
        try await s.waitUntilOnline()
        for n in 0..<12 { try s.publish("z2m/dev\(n)/availability", Self.offline) }
        try s.publish("z2m/siren/availability", Self.critical)
        try await eventually("3 + 1 critical displayed, 9 held") {
            try Self.displays(s).count == 4 && bridge.bridge.flow.digests.counts["device-offline"]?.held == 9
        }
        #expect(try Set(Self.titles(s)) == ["dev0 offline", "dev1 offline", "dev2 offline", "siren offline"])
        clock.advance(119); bridge.fireDigests()
        clock.advance(1); bridge.fireDigests()
        let summary = try await s.waitFor(s.display("z2m/dev11/availability"))[0]
        let json = try JSONValue.parse(summary.payload)
        #expect(json["title"] == .string("9 more"))
        #expect(json["body"] == .string((3..<12).map { "dev\($0) offline" }.joined(separator: ", ")))
        #expect(json["collapse_id"] == .string("device-offline-digest"))
        #expect(json["route"] == .string("device-offline"))
        try await eventually("5 messages in ntfy", timeout: .seconds(20)) { try ntfy.messages(topic).count == 5 }
        let got = try ntfy.messages(topic)
        #expect(got.filter { $0["title"] == .string("9 more") }.count == 1)
        #expect(got.first { $0["title"] == .string("9 more") }?["message"] == json["body"])
        let stats = try await s.waitForStats("digests counted") { $0["routes"]?["device-offline"]?["digests"] == .int(1) }
        let route = stats["routes"]?["device-offline"]
        #expect(route?["digested"] == .int(9) && route?["delivered"] == .int(4) && route?["suppressed"] == .int(9))
        #expect(route?["received"] == .int(13))
        #expect(stats["totals"]?["received"] == .int(13))
        // Nothing more: the window is closed and nothing is held.
        clock.advance(600); bridge.fireDigests()
        #expect(bridge.bridge.flow.digests.heldNow == 0 && bridge.bridge.flow.digests.nextDue == nil)
        try await bridge.stop()
        #expect(try Self.displays(s).count == 5)
        await ntfy.stop()
    }

    @Test("two keys are two windows; after a window ends the next alert opens a new one")
    func keysAndWindows() async throws {
        let s = try await Scenario.start()
        let clock = FakeWallClock(1_800_000_000)
        let bridge = try InProcessBridge.start(yaml: Self.yaml(s, digest: #"{window: 1m, max: 1, key: "{{ payload.room }}"}"#),
                                               clock: clock.stageClock)
        try await s.waitUntilOnline()
        for device in ["kitchen-1", "kitchen-2", "kitchen-3", "cellar-1", "cellar-2"] {
            try s.publish("z2m/\(device)/availability", Self.offline(in: device))
        }
        try await eventually("2 displayed, 3 held") {
            try Self.displays(s).count == 2 && bridge.bridge.flow.digests.heldNow == 3
        }
        clock.advance(60); bridge.fireDigests()
        try await eventually("2 summaries") { try Self.displays(s).count == 4 }
        let summaries = try Self.displays(s).suffix(2).map { jsonString($0["title"]) + " / " + jsonString($0["body"]) }
        #expect(Set(summaries) == ["2 more: device-offline / kitchen-2 offline, kitchen-3 offline", "1 more: device-offline / cellar-2 offline"])
        // A new window: max counts again.
        clock.advance(5)
        try s.publish("z2m/kitchen-4/availability", Self.offline(in: "kitchen-4"))
        try s.publish("z2m/kitchen-5/availability", Self.offline(in: "kitchen-5"))
        try await eventually("the new window's first alert") { try Self.displays(s).count == 5 && bridge.bridge.flow.digests.heldNow == 1 }
        #expect(try Self.titles(s).last == "kitchen-4 offline")
        clock.advance(60); bridge.fireDigests()
        try await eventually("its summary") { try Self.displays(s).count == 6 }
        #expect(try Self.displays(s).last?["body"] == .string("kitchen-5 offline"))
        #expect(bridge.bridge.flow.digests.counts["device-offline"]?.sent == 3)
        try await bridge.stop()
    }

    @Test("real time: a 1s window sends its summary by itself")
    func realTime() async throws {
        let s = try await Scenario.start()
        let bridge = try InProcessBridge.start(yaml: Self.yaml(s, digest: "{window: 1s, max: 1}"))
        try await s.waitUntilOnline()
        for n in 0..<5 { try s.publish("z2m/d\(n)/availability", Self.offline) }
        try await eventually("1 alert and 1 summary", timeout: .seconds(15)) { try Self.displays(s).count == 2 }
        #expect(try Self.titles(s) == ["d0 offline", "4 more: device-offline"])
        #expect(try Self.displays(s)[1]["body"] == .string("d1 offline, d2 offline, d3 offline, d4 offline"))
        try await bridge.stop()
    }
}

/// A graceful stop without a journal: nothing keeps the held alerts, so their summaries go
/// out before the bridge stops.
@Suite("Integration: digests at a graceful stop", .serialized)
struct DigestStopTests {
    @Test("without a journal a stop sends the open windows' summaries early")
    func stopSendsSummaries() async throws {
        let s = try await Scenario.start()
        let clock = FakeWallClock(1_800_000_000)
        let bridge = try InProcessBridge.start(yaml: DigestFlowTests.yaml(s, digest: "{window: 1h, max: 1}"), clock: clock.stageClock)
        try await s.waitUntilOnline()
        for n in 0..<3 { try s.publish("z2m/d\(n)/availability", DigestFlowTests.offline) }
        try await eventually("2 held") { bridge.bridge.flow.digests.heldNow == 2 }
        try await bridge.stop()
        try await eventually("the summary") { try DigestFlowTests.displays(s).count == 2 }
        #expect(try DigestFlowTests.titles(s) == ["d0 offline", "2 more: device-offline"])
        #expect(bridge.log.lines.contains { $0.contains("sending 1 digest summary(ies) early") })
    }
}
