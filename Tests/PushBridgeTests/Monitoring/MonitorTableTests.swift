import Testing
@testable import PushBridge
@testable import PushBridgeCLI

@Suite("Monitor table")
struct MonitorTableTests {
    let start = 1_700_000_000.0

    func counters(_ received: Int, _ delivered: Int, _ suppressed: Int, _ rejected: Int) -> Counters {
        var c = Counters()
        c.received = received
        c.delivered = delivered
        c.suppressed = suppressed
        c.rejected = rejected
        return c
    }

    func snapshot(uptime: Double, doorbell: Int, connected: Bool = true) -> StatsSnapshot {
        var totals = counters(doorbell + 7, doorbell + 2, 2, 3)
        totals.inFlight = 0
        return StatsSnapshot(version: "1.0.0", startedAt: start, uptime: uptime, connected: connected, totals: totals,
                             topics: [
                                "home/front/doorbell": TopicStats(counters: counters(doorbell, doorbell, 0, 0), lastSeen: start + uptime - 3),
                                "garage/temp": TopicStats(counters: counters(7, 2, 2, 3), lastSeen: start + uptime - 400),
                                "a/quiet": TopicStats(counters: counters(7, 7, 0, 0), lastSeen: nil),
                             ])
    }

    @Test func rendersHeaderColumnsAndRates() {
        let previous = snapshot(uptime: 3720, doorbell: 10)
        let current = snapshot(uptime: 3730, doorbell: 14)
        let text = MonitorTable.render(current: current, previous: previous, width: 120, now: start + 3730)
        #expect(text.split(separator: "\n", omittingEmptySubsequences: false) == [
            "pushbridge 1.0.0  connected  up 1h02m  in flight 0  received 21  delivered 16  suppressed 2  rejected 3",
            "TOPIC                RECEIVED  DELIVERED  SUPPRESSED  REJECTED  RATE/S  LAST SEEN",
            "home/front/doorbell        14         14           0         0     0.4  3s ago",
            "a/quiet                     7          7           0         0     0.0  -",
            "garage/temp                 7          2           2         3     0.0  6m ago",
        ])
    }

    @Test func noPreviousMeansNoRate() {
        let lines = MonitorTable.lines(current: snapshot(uptime: 5, doorbell: 1, connected: false), previous: nil,
                                       width: 200, now: start + 5)
        #expect(lines[0].hasPrefix("pushbridge 1.0.0  disconnected  up 5s  in flight 0"))
        #expect(lines[2].hasSuffix("      -  -"))               // a/quiet: no rate, never seen
        #expect(lines.dropFirst(2).allSatisfy { $0.contains("  -  ") })
    }

    @Test func previousFromAnotherRunMeansNoRate() {
        var previous = snapshot(uptime: 100, doorbell: 1)
        previous.startedAt -= 1000
        let lines = MonitorTable.lines(current: snapshot(uptime: 5, doorbell: 3), previous: previous, width: 200, now: start + 5)
        #expect(lines.dropFirst(2).allSatisfy { $0.contains("  -  ") })
    }

    @Test func narrowWidthElidesTopicsInTheMiddleAndCutsLines() {
        let lines = MonitorTable.lines(current: snapshot(uptime: 10, doorbell: 9), previous: nil, width: 70, now: start + 10)
        #expect(lines.allSatisfy { $0.count <= 70 })
        // 62 columns go to the numbers and LAST SEEN, 8 are left for TOPIC.
        #expect(lines[1] == "TOPIC     RECEIVED  DELIVERED  SUPPRESSED  REJECTED  RATE/S  LAST SEEN")
        #expect(lines[2] == "home…ell         9          9           0         0       -  3s ago")
        #expect(lines[4] == "gara…emp         7          2           2         3       -  6m ago")
        #expect(lines[0] == String("pushbridge 1.0.0  connected  up 10s  in flight 0  received 16  delivered 11  sup".prefix(70)))
    }

    @Test func tinyWidthStillBounded() {
        for width in [0, 1, 5, 20] {
            let lines = MonitorTable.lines(current: snapshot(uptime: 1, doorbell: 1), previous: nil, width: width, now: start)
            #expect(lines.allSatisfy { $0.count <= width }, "width \(width)")
        }
    }

    @Test(arguments: [("abcdefghij", 10, "abcdefghij"), ("abcdefghij", 9, "abcd…ghij"), ("abcdefghij", 6, "abc…ij"),
                      ("abcdefghij", 2, "a…"), ("abcdefghij", 1, "a"), ("abcdefghij", 0, "")] as [(String, Int, String)])
    func elision(text: String, width: Int, expected: String) {
        #expect(MonitorTable.elide(text, to: width) == expected)
    }

    @Test(arguments: [(0.2, "now"), (3.0, "3s ago"), (59.9, "59s ago"), (60.0, "1m ago"), (3599.0, "59m ago"),
                      (3600.0, "1h ago"), (86_399.0, "23h ago"), (259_200.0, "3d ago"), (-5.0, "now")] as [(Double, String)])
    func agoText(seconds: Double, expected: String) {
        #expect(MonitorTable.ago(seconds) == expected)
    }

    @Test(arguments: [(0.0, "0s"), (42.0, "42s"), (303.0, "5m03s"), (3720.0, "1h02m"), (273_605.0, "3d04h")] as [(Double, String)])
    func durationText(seconds: Double, expected: String) {
        #expect(MonitorTable.duration(seconds) == expected)
    }

    @Test(arguments: [(0.0, "0.0"), (0.04, "0.0"), (0.36, "0.4"), (12.0, "12.0"), (999.94, "999.9"), (1234.6, "1235")] as [(Double, String)])
    func rateText(rate: Double, expected: String) {
        #expect(MonitorTable.rateText(rate) == expected)
    }

    @Test func sessionFramesRedrawInPlaceAndTrackRates() {
        var session = MonitorSession()
        let first = session.frame(for: snapshot(uptime: 10, doorbell: 1), width: 100, now: start + 10)
        #expect(first.hasPrefix("\u{1B}[H"))
        #expect(first.hasSuffix("\u{1B}[K\u{1B}[J"))
        #expect(!first.contains("\u{1B}[?1049h"))                  // no alternate screen
        #expect(first.components(separatedBy: "\u{1B}[K\r\n").count == 5)
        #expect(first.contains("0       -  3s ago"))             // no previous yet: no rate
        let second = session.frame(for: snapshot(uptime: 20, doorbell: 11), width: 100, now: start + 20)
        #expect(second.contains("     1.0  "))                     // (11 - 1) / 10 s
        #expect(session.previous?.uptime == 20)
        let short = session.frame(for: snapshot(uptime: 30, doorbell: 12), width: 100, height: 2, now: start + 30)
        #expect(short == "\u{1B}[H" + MonitorTable.lines(current: snapshot(uptime: 30, doorbell: 12),
                                                          previous: snapshot(uptime: 20, doorbell: 11),
                                                          width: 100, now: start + 30)
            .prefix(2).joined(separator: "\u{1B}[K\r\n") + "\u{1B}[K\u{1B}[J")
    }
}
