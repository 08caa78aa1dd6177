import Testing
@testable import PushBridge

@Suite struct DeliveryEventsTests {
    func snapshot() -> StatsSnapshot {
        var s = Stats(maxTopics: 10, version: "t", startedAt: 0).snapshot(now: 1)
        var d = DeliveryCounts()
        d[.qos0Dropped] = 3
        d[.publishRefused] = 1
        s.delivery = d
        return s
    }

    @Test func deliveryEventsAreInTheStatsJSON() throws {
        let v = try JSONValue.parse(snapshot().json())
        #expect(v["delivery"] == .object(["journal_errors": .int(0), "journal_overflows": .int(0), "publish_failed": .int(0),
                                          "publish_refused": .int(1), "qos0_dropped": .int(3),
                                          "redeliveries_skipped": .int(0), "replayed": .int(0)]))
        // In wire-name order, as the bridge has always written them.
        let text = String(decoding: snapshot().json(), as: UTF8.self)
        #expect(text.contains(#""delivery":{"journal_errors":0,"journal_overflows":0,"publish_failed":0,"publish_refused":1,"qos0_dropped":3,"redeliveries_skipped":0,"replayed":0}"#))
        // Absent when the bridge set none (a snapshot from Stats alone).
        let plain = try JSONValue.parse(Stats(maxTopics: 1, version: "t", startedAt: 0).snapshot(now: 1).json())
        #expect(plain["delivery"] == nil)
    }

    @Test func deliveryEventsAreAPrometheusCounterFamily() {
        let text = prometheusText(snapshot())
        let checker = PrometheusChecker(text)
        #expect(checker.errors.isEmpty, "\(checker.errors)")
        #expect(checker.types["pushbridge_delivery_events_total"] == "counter")
        #expect(checker.samples.contains { $0.name == "pushbridge_delivery_events_total"
            && $0.labels.contains { $0 == ("event", "qos0_dropped") } && $0.value == 3 })
    }
}
