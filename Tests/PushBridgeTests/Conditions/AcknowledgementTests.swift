import Foundation
import Testing
@testable import PushBridge
@testable import PushBridgeCLI

/// What is and is not an acknowledgement: the ack topic's payloads, `pushbridge ack`'s
/// arguments and its check against `GET /api/alerts`, the warning once a minute, the
/// counters and the `BadAcknowledgement` dead letter.
@Suite struct AcknowledgementTests {
    func parse(_ text: String) -> Result<Acknowledgement, AckError> { Acknowledgement.parse(Array(text.utf8)) }

    func refusal(_ text: String) -> String? {
        guard case .failure(let error) = parse(text) else { return nil }
        return error.description
    }

    @Test func bothFormsAndTheirOptions() throws {
        #expect(try parse(#"{"alert_id":"x","by":"me","snooze":"30m"}"#).get() == Acknowledgement(alertID: "x", by: "me", snooze: .seconds(1800)))
        #expect(try parse(#"{"route":"leak","key":"z/b"}"#).get() == Acknowledgement(route: "leak", key: "z/b"))
        #expect(try parse(#"{"alert_id":"x","snooze":90}"#).get().snooze == .seconds(90))
        #expect(try parse(#"{"alert_id":"x","snooze":null,"by":null}"#).get() == Acknowledgement(alertID: "x"))
        #expect(try parse(#"{"alert_id":"x","by":1042}"#).get().by == "1042")  // a user id, as written
        // An empty alert_id beside a route and key: the route and key decide.
        #expect(try parse(#"{"alert_id":"","route":"leak","key":"k"}"#).get() == Acknowledgement(route: "leak", key: "k"))
    }

    @Test func whatIsRejectedAndWhy() {
        #expect(refusal("ack") == "not a JSON object")
        #expect(refusal("") == "not a JSON object")
        #expect(refusal(#"["x"]"#) == "not a JSON object")
        #expect(refusal("{}") == "needs a non-empty 'alert_id', or 'route' and 'key'")
        #expect(refusal(#"{"route":"leak"}"#) == "needs a non-empty 'alert_id', or 'route' and 'key'")
        #expect(refusal(#"{"alert_id":""}"#) == "needs a non-empty 'alert_id', or 'route' and 'key'")
        #expect(refusal(#"{"alert_id":42}"#) == "'alert_id' must be a string, got 42")
        #expect(refusal(#"{"route":"leak","key":{"topic":"z/b"}}"#) == #"'key' must be a string, got {"topic":"z/b"}"#)
        #expect(refusal(#"{"alert_id":"x","snooze":"\#(String(repeating: "9", count: 80))"}"#)?.hasSuffix("9…") == true)
        #expect(refusal(#"{"alert_id":"x","snooze":"soon"}"#) == #"'snooze' must be a duration above zero such as 30m, got "soon""#)
        #expect(refusal(#"{"alert_id":"x","snooze":"0s"}"#) != nil)
        #expect(refusal(#"{"alert_id":"x","snooze":"-5m"}"#) != nil)
        #expect(refusal(#"{"alert_id":"x","snooze":true}"#) != nil)
    }

    @Test func theCommandRefusesAnEmptyIDAndABadDuration() throws {
        func refused(_ positionals: [String], snooze: String? = nil) -> String? {
            guard case .failure(let r) = AckRequest.make(positionals: positionals, snooze: snooze, by: nil) else { return nil }
            return r.description
        }
        #expect(refused([])?.contains("'ack' needs one ALERT_ID; 'pushbridge alerts' lists the active ones") == true)
        #expect(refused([""])?.hasPrefix("the ALERT_ID is empty; give the alert_id of an active alert") == true)
        #expect(refused(["  "])?.hasPrefix("the ALERT_ID is empty") == true)
        #expect(refused(["X"], snooze: "5 parsecs")
                == "'--snooze' must be a duration above zero: a number and a unit, ms, s, m, h or d (30m, 1.5h, 90s), got '5 parsecs'")
        #expect(refused(["X"], snooze: "0")?.contains("got '0'") == true)
        // `--snooze 5 parsecs` unquoted: the second word is a second ALERT_ID.
        #expect(refused(["X", "parsecs"], snooze: "5")
                == "'ack' takes one ALERT_ID, got 2: 'X' 'parsecs'; '--snooze' takes one word, such as 30m or 1.5h")
        let ack = try AckRequest.make(positionals: ["A1"], snooze: "30m", by: "alice").get()
        #expect(ack == Acknowledgement(alertID: "A1", by: "alice", snooze: .seconds(1800)))
        #expect(try Acknowledgement.parse(ack.payload).get() == ack)
    }

    @Test func anIDThatIsNotActiveListsTheActiveOnes() {
        let alerts: [JSONValue] = [
            .object(["alert_id": .string("6f1c"), "route": .string("leak"), "key": .string("zigbee2mqtt/basement")]),
            .object(["alert_id": .string("9a0b"), "route": .string("door"), "key": .string("garage")]),
        ]
        #expect(AckRequest.missing("6f1c", in: alerts) == nil)
        #expect(AckRequest.missing("nope", in: alerts) == """
            no active alert nope; the active ones:
              ALERT_ID  ROUTE  KEY
              6f1c      leak   zigbee2mqtt/basement
              9a0b      door   garage
            """)
        #expect(AckRequest.missing("nope", in: []) == "no active alert nope (no alert is active now)")
    }

    @Test func oneWarningAMinuteWithTheCountHeldBack() {
        var t = WarningThrottle(interval: 60)
        #expect(t.note(now: 1000) == 0)
        #expect(t.note(now: 1010) == nil)
        #expect(t.note(now: 1059.9) == nil)
        #expect(t.note(now: 1060) == 2)
        #expect(t.note(now: 1061) == nil)
        #expect(t.note(now: 2000) == 1)
        #expect(t.note(now: 1500) == 0)  // a clock set back starts a new interval
    }

    @Test func theEngineCountsUnknownAndRejectedAnswers() throws {
        let idle = ConditionEngine(logger: LogCollector().logger())
        #expect(idle.acknowledgementCounts == nil)  // no condition route, nothing arrived
        let e = ConditionEngineTests.engine(try ConditionEngineTests.route())
        #expect(e.acknowledgementCounts == AcknowledgementCounts())
        #expect(e.acknowledge(Acknowledgement(alertID: "never-raised"), now: 0) == nil)
        #expect(e.rejectAcknowledgement(now: 100) == 0)
        #expect(e.rejectAcknowledgement(now: 110) == nil)
        #expect(e.rejectAcknowledgement(now: 120) == nil)
        #expect(e.rejectAcknowledgement(now: 161) == 2)
        #expect(e.acknowledgementCounts == AcknowledgementCounts(unknown: 1, rejected: 4))
    }

    @Test func theDeadLetterOfABadAcknowledgement() throws {
        let r = DisplayRenderer(display: DisplayConfig(), deadLetter: DeadLetterConfig(topic: try Template.parse("dead/{{ topic }}")),
                                userProperties: true, hop: nil)
        let m = InboundMessage(topic: "pushbridge/ack", payload: Array("ack!".utf8), qos: 1, receivedAt: 1_800_000_000)
        let dl = try #require(r.badAcknowledgementMessage("not a JSON object", message: m))
        #expect(dl.topic == "dead/pushbridge/ack" && dl.qos == 1 && !dl.retain)
        #expect(dl.userProperties.map(\.name) == ["reason"] && dl.userProperties.map(\.value) == ["BadAcknowledgement"])
        #expect(String(decoding: dl.payload, as: UTF8.self)
                == #"{"reason":"BadAcknowledgement","detail":"not a JSON object","source_topic":"pushbridge/ack","route":null,"#
                + #""payload":"ack!","received_at":"2027-01-15T08:00:00.000Z"}"#)
        let off = DisplayRenderer(display: DisplayConfig(), deadLetter: nil, userProperties: true, hop: nil)
        #expect(off.badAcknowledgementMessage("x", message: m) == nil)
    }

    @Test func statsAndMetricsCarryTheCounters() throws {
        var s = ConditionMonitoringTests.snapshot()
        #expect(try JSONValue.parse(s.json())["conditions"] == nil)
        s.acknowledgements = AcknowledgementCounts(unknown: 2, rejected: 3)
        let json = try JSONValue.parse(s.json())
        #expect(json["conditions"] == .object(["ack_unknown": .int(2), "ack_rejected": .int(3)]))
        let text = prometheusText(s)
        #expect(text.contains("# TYPE pushbridge_ack_rejected_total counter\npushbridge_ack_rejected_total 3\n"))
        #expect(text.contains("# TYPE pushbridge_ack_unknown_total counter\npushbridge_ack_unknown_total 2\n"))
    }
}
