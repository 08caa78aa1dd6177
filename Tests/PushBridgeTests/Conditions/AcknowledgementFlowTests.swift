import Foundation
import Testing
@testable import PushBridge

/// Acknowledgements on a real mosquitto: `pushbridge ack` (the real binary) refusing bad
/// arguments, checking the running bridge's `GET /api/alerts` (and publishing anyway when it
/// does not answer); garbage on the ack topic counted, warned about once a minute and
/// dead-lettered as `BadAcknowledgement`.
///
/// Payloads: Zigbee2MQTT water leak sensors, as in `ConditionFlowTests`.
@Suite("Conditions: acknowledgements and their refusals (real broker, real binary)")
struct AcknowledgementFlowTests {
    func yaml(_ s: Scenario, http: Int?, every: String = "1s") -> String {
        let text = s.yaml("""
            conditions: {ack_topic: \(s.ns)/ack}
            routes:
              - name: leak
                topic: "\(s.ns)/in/#"
                alert: {title: "Water leak", body: "{{ topic }}"}
                condition:
                  key: "{{ topic }}"
                  active: 'payload.water_leak == true'
                  repeat: {every: \(every)}
            """)
        guard let http else { return text }
        return text.replacingOccurrences(of: "  log_level: debug", with: "  log_level: debug\n  http: 127.0.0.1:\(http)")
    }

    func ack(_ arguments: [String]) async throws -> ProcessResult {
        try await ManagedProcess.run(try PushbridgeBinary.located(), ["ack"] + arguments)
    }

    func alertID(_ m: InboundMessage) throws -> String { jsonString(try JSONValue.parse(m.payload)["condition"]?["alert_id"]) }

    @Test("ack refuses an empty id and a bad --snooze with exit 2 and says what to do")
    func refusals() async throws {
        let s = try await Scenario.start()
        let file = try writeTempFile(yaml(s, http: nil))
        let empty = try await ack(["-c", file, ""])
        #expect(empty.status == 2, "\(empty.stderr)")
        #expect(empty.stderr.contains("the ALERT_ID is empty; give the alert_id of an active alert ('pushbridge alerts' lists the active ones)"),
                "\(empty.stderr)")
        #expect(!empty.stdout.contains("acknowledged"))
        let parsecs = try await ack(["-c", file, "X", "--snooze", "5 parsecs"])
        #expect(parsecs.status == 2, "\(parsecs.stderr)")
        #expect(parsecs.stderr.contains("'--snooze' must be a duration above zero: a number and a unit, ms, s, m, h or d (30m, 1.5h, 90s), got '5 parsecs'"),
                "\(parsecs.stderr)")
        let unquoted = try await ack(["-c", file, "X", "--snooze", "5", "parsecs"])
        #expect(unquoted.status == 2 && unquoted.stderr.contains("'ack' takes one ALERT_ID, got 2: 'X' 'parsecs'"), "\(unquoted.stderr)")
    }

    @Test("with monitoring.http: an unknown id exits 1 with the active ones, an active one stops the repeats; no server: published anyway")
    func checkedAgainstTheRunningBridge() async throws {
        let s = try await Scenario.start()
        let http = try LoopbackPorts.free()
        let text = yaml(s, http: http)
        let file = try writeTempFile(text)
        let bridge = try InProcessBridge.start(yaml: text)
        try await s.waitUntilOnline()
        try await waitUntilReady(port: http)
        let basement = s.display("basement")
        try s.publish("basement", ConditionFlowTests.wet)
        let id = try alertID(try await s.waitFor(basement)[0])

        let unknown = try await ack(["-c", file, "0b4f-not-an-alert"])
        #expect(unknown.status == 1, "\(unknown.stdout) \(unknown.stderr)")
        #expect(unknown.stderr.contains("no active alert 0b4f-not-an-alert; the active ones:"), "\(unknown.stderr)")
        let row = unknown.stderr.split(separator: "\n").first { $0.contains(id) }.map(String.init) ?? ""
        #expect(row.contains("leak") && row.contains(s.input("basement")), "\(unknown.stderr)")
        #expect(bridge.bridge.flow.conditions.active.first?.acknowledged == false)

        _ = try await s.waitFor(basement, count: 2, timeout: .seconds(15))  // repeating, every second
        let acked = try await ack(["-c", file, id, "--by", "tester"])
        #expect(acked.status == 0 && acked.stdout.contains("\(id): acknowledged"), "\(acked.stderr)")
        #expect(!acked.stderr.contains("cannot check"), "\(acked.stderr)")
        try await eventually("acknowledged") { bridge.bridge.flow.conditions.active.first?.acknowledged == true }
        try await Task.sleep(for: .milliseconds(300))  // a repeat decided just before the answer
        let shown = s.messages(on: basement).count
        try await Task.sleep(for: .milliseconds(2_500))  // more than two repeat intervals
        #expect(s.messages(on: basement).count == shown, "a repeat after the acknowledgement")

        // The config names a server that does not answer: said on stderr, published anyway.
        let kitchen = s.display("kitchen")
        try s.publish("kitchen", ConditionFlowTests.wet)
        let other = try alertID(try await s.waitFor(kitchen)[0])
        let elsewhere = try writeTempFile(yaml(s, http: try LoopbackPorts.free()))
        let anyway = try await ack(["-c", elsewhere, other, "--snooze", "1h"])
        #expect(anyway.status == 0 && anyway.stdout.contains("\(other): snoozed for 1h"), "\(anyway.stderr)")
        #expect(anyway.stderr.contains("cannot check that \(other) is active: GET http://127.0.0.1:"), "\(anyway.stderr)")
        #expect(anyway.stderr.contains("publishing the acknowledgement anyway (the bridge may run elsewhere)"), "\(anyway.stderr)")
        try await eventually("snoozed") { bridge.bridge.flow.conditions.active.contains { $0.alertID == other && $0.snoozedUntil != nil } }
        try await bridge.stop()
    }

    @Test("garbage on the ack topic: counted as ack_rejected, one warning a minute, dead-lettered as BadAcknowledgement")
    func garbageOnTheAckTopic() async throws {
        let s = try await Scenario.start()
        let clock = FakeWallClock(1_800_000_000)
        let bridge = try InProcessBridge.start(yaml: yaml(s, http: nil), clock: clock.stageClock)
        try await s.waitUntilOnline()
        let ackTopic = "\(s.ns)/ack"
        let dead = "\(s.ns)/dead/\(s.ns)/ack"
        let bad = [("ack!", "not a JSON object"),
                   (#"{"by":"alice"}"#, "needs a non-empty 'alert_id', or 'route' and 'key'"),
                   (#"{"alert_id":"A","snooze":"5 parsecs"}"#, #"'snooze' must be a duration above zero such as 30m, got "5 parsecs""#)]
        for (text, _) in bad { try s.observer.publish(ackTopic, text) }
        try s.observer.publish(ackTopic, #"{"alert_id":"never-raised"}"#)  // no active alert: counted, debug only
        let letters = try await s.waitFor(dead, count: 3)
        for (letter, (text, detail)) in zip(letters, bad) {
            let v = try JSONValue.parse(letter.payload)
            #expect(jsonString(v["reason"]) == "BadAcknowledgement" && jsonString(v["detail"]) == detail, "\(v)")
            #expect(jsonString(v["source_topic"]) == ackTopic && v["route"] == .null && jsonString(v["payload"]) == text, "\(v)")
            #expect(jsonString(v["received_at"]).hasSuffix("Z"))
            #expect(letter.property("reason") == "BadAcknowledgement")
        }
        try await s.waitForStats("ack_rejected 3, ack_unknown 1") {
            $0["conditions"]?["ack_rejected"] == .int(3) && $0["conditions"]?["ack_unknown"] == .int(1)
        }
        let metrics = prometheusText(bridge.bridge.statsSources.snapshot())
        #expect(metrics.contains("pushbridge_ack_rejected_total 3\n") && metrics.contains("pushbridge_ack_unknown_total 1\n"))
        func warnings() -> [String] { bridge.log.lines.filter { $0.contains(" warning ") && $0.contains("not an acknowledgement") } }
        #expect(warnings().count == 1, "\(warnings())")
        #expect(warnings().first?.contains("not an acknowledgement, ignored: not a JSON object") == true, "\(warnings())")
        #expect(bridge.log.lines.filter { $0.contains(" debug ") && $0.contains("not an acknowledgement") }.count == 2)
        #expect(bridge.log.contains("acknowledgement for no active, unacknowledged condition (never-raised)"))
        // A minute later the next one is warned about, with the two held back since.
        clock.advance(61)
        try s.observer.publish(ackTopic, "[]")
        _ = try await s.waitFor(dead, count: 4)
        try await bridge.log.waitFor("the second warning") { $0.contains(" warning ") && $0.contains("; 2 more since the last warning") }
        #expect(warnings().count == 2)
        #expect(bridge.bridge.flow.conditions.acknowledgementCounts == AcknowledgementCounts(unknown: 1, rejected: 4))
        try await bridge.stop()
    }
}
