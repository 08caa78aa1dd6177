import Foundation
import Testing
@testable import PushBridge

/// The digests' state machine: windows per route and key, `max` delivered one by one, the
/// rest held, the summary at the window's end, replays held once, restore after a restart.
@Suite("Digests: windows")
struct DigestWindowsTests {
    static let t0 = 1_800_000_000.0

    static func alert(_ n: Int, at: Double = t0, topic: String = "zigbee2mqtt/dev") -> DigestHeldRow {
        DigestHeldRow(id: "id-\(n)", title: "Device \(n) offline", alertKey: "\(topic)/\(n)", topic: topic, at: at)
    }

    /// Offers alerts 0..<count of `route`/`key` at `t0 + n`; returns how many were delivered.
    static func offer(_ w: inout DigestWindows, route: String = "offline", key: String = "offline", count: Int,
                      from first: Int = 0, at start: Double = t0, window: Double = 120, max: Int = 3) -> Int {
        var delivered = 0
        var ids = 0
        for n in first..<(first + count) {
            let a = alert(n, at: start + Double(n - first))
            switch w.admit(route: route, key: key, window: window, max: max, alert: a, now: a.at, newID: { ids += 1; return "s-\(route)-\(key)-\(n)" }) {
            case .deliver: delivered += 1
            case .held, .heldAgain: break
            }
        }
        return delivered
    }

    @Test("12 alerts in a window with max 3: 3 one by one, 9 held and summarized once at the window's end")
    func twelveInAWindow() {
        var w = DigestWindows()
        #expect(Self.offer(&w, count: 12) == 3)
        #expect(w.counts["offline"]?.held == 9)
        #expect(w.nextDue == Self.t0 + 120)
        #expect(w.due(now: Self.t0 + 119.9).isEmpty)
        let due = w.due(now: Self.t0 + 120)
        #expect(due.count == 1)
        #expect(due[0].held.map(\.id) == (3..<12).map { "id-\($0)" })
        #expect(due[0].window.sent == 3 && due[0].window.opened == Self.t0 && due[0].window.ends == Self.t0 + 120)
        #expect(w.due(now: Self.t0 + 1000).isEmpty, "a summary is due once")
        #expect(w.nextDue == nil && w.open.isEmpty)
        w.sent(route: "offline")
        #expect(w.counts["offline"] == { var c = DigestCounts(); c.held = 9; c.sent = 1; return c }())
    }

    @Test("two keys are two windows, each with its own max and end")
    func twoKeys() {
        var w = DigestWindows()
        #expect(Self.offer(&w, key: "kitchen", count: 5) == 3)
        #expect(Self.offer(&w, key: "cellar", count: 4, from: 100, at: Self.t0 + 30) == 3)
        #expect(w.open.count == 2)
        let first = w.due(now: Self.t0 + 120)
        #expect(first.map(\.window.key) == ["kitchen"] && first[0].held.count == 2)
        let second = w.due(now: Self.t0 + 150)
        #expect(second.map(\.window.key) == ["cellar"] && second[0].held.map(\.id) == ["id-103"])
        #expect(w.counts["offline"]?.held == 3)
    }

    @Test("after a window ends the next alert opens a new one (max counts again), even before the timer fired")
    func newWindowAfterTheEnd() {
        var w = DigestWindows()
        #expect(Self.offer(&w, count: 4) == 3)
        // The timer is late: the next alert ends the old window and opens a new one.
        #expect(Self.offer(&w, count: 4, from: 10, at: Self.t0 + 200) == 3)
        let ended = w.due(now: Self.t0 + 200)
        #expect(ended.count == 1 && ended[0].held.map(\.id) == ["id-3"])
        #expect(w.nextDue == Self.t0 + 320)
        let next = w.due(now: Self.t0 + 320)
        #expect(next.count == 1 && next[0].held.map(\.id) == ["id-13"] && next[0].window.opened == Self.t0 + 200)
        #expect(ended[0].id != next[0].id, "each window's summary has its own id")
    }

    @Test("max 0 holds every alert; a window that held nothing ends with an empty summary (nothing to send)")
    func maxZeroAndEmptyWindows() {
        var w = DigestWindows()
        #expect(Self.offer(&w, count: 3, max: 0) == 0)
        #expect(w.due(now: Self.t0 + 120)[0].held.count == 3)
        var quiet = DigestWindows()
        #expect(Self.offer(&quiet, count: 2) == 2)
        let ended = quiet.due(now: Self.t0 + 120)
        #expect(ended.count == 1 && ended[0].held.isEmpty)
    }

    @Test("a replayed alert (same id) is held once")
    func replayHeldOnce() {
        var w = DigestWindows()
        _ = Self.offer(&w, count: 4, max: 3)
        let again = w.admit(route: "offline", key: "offline", window: 120, max: 3, alert: Self.alert(3), now: Self.t0 + 5, newID: { "x" })
        guard case .heldAgain = again else { Issue.record("\(again)"); return }
        #expect(w.due(now: Self.t0 + 120)[0].held.count == 1)
        #expect(w.counts["offline"]?.held == 1)
    }

    @Test("restore: an ended window is due at once, an open one at its end, holding what it held")
    func restore() {
        var w = DigestWindows()
        let ended = DigestWindowRow(route: "offline", key: "a", summaryID: "s1", opened: Self.t0 - 300, ends: Self.t0 - 180, sent: 3)
        let open = DigestWindowRow(route: "offline", key: "b", summaryID: "s2", opened: Self.t0 - 60, ends: Self.t0 + 60, sent: 3)
        w.restore(ended, held: [Self.alert(1)], now: Self.t0)
        w.restore(open, held: [Self.alert(2)], now: Self.t0)
        #expect(w.nextDue == Self.t0 - 180)
        #expect(w.due(now: Self.t0).map(\.id) == ["s1"])
        // The open window goes on: its max is used up, so the next is held, the replay of 2 is not held twice.
        guard case .held = w.admit(route: "offline", key: "b", window: 120, max: 3, alert: Self.alert(3), now: Self.t0 + 1, newID: { "n" }),
              case .heldAgain = w.admit(route: "offline", key: "b", window: 120, max: 3, alert: Self.alert(2), now: Self.t0 + 2, newID: { "n" })
        else { Issue.record("not held"); return }
        let due = w.due(now: Self.t0 + 60)
        #expect(due.map(\.id) == ["s2"] && due[0].held.map(\.id) == ["id-2", "id-3"])
    }

    @Test("digest.* describes the held alerts only; the default title and body")
    func summaryValue() {
        let row = DigestWindowRow(route: "device-offline", key: "device-offline", summaryID: "s", opened: Self.t0, ends: Self.t0 + 120, sent: 3)
        let s = DigestSummary(window: row, held: [Self.alert(4, at: Self.t0 + 4), Self.alert(5, at: Self.t0 + 61.5)])
        #expect(s.value["count"] == .int(2))
        #expect(s.value["titles"] == .array([.string("Device 4 offline"), .string("Device 5 offline")]))
        #expect(s.value["keys"] == .array([.string("zigbee2mqtt/dev/4"), .string("zigbee2mqtt/dev/5")]))
        #expect(s.value["first_at"] == .string(Timestamp.iso8601(Self.t0 + 4)))
        #expect(jsonString(s.value["last_at"]).hasSuffix("Z"))
        #expect(s.defaultTitle == "2 more: device-offline")
        #expect(s.defaultBody == "Device 4 offline, Device 5 offline")
    }

    @Test("the book stores windows and held alerts in the journal and reads them back; a sent summary is removed")
    func journalRoundTrip() throws {
        let dir = NSTemporaryDirectory() + "pushbridge-digests-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var config = JournalConfig()
        config.path = dir
        let digest = DigestConfig(window: .seconds(120), max: 1, key: try Template.parse("{{ route }}"))
        do {
            let book = DigestBook(journal: try Journal(config: config), logger: BridgeLogger(level: .error))
            for n in 0..<4 {
                _ = book.admit(route: "offline", key: "k", config: digest, alert: Self.alert(n, at: Self.t0 + Double(n)), now: Self.t0 + Double(n))
            }
            #expect(book.heldNow == 3)
        }
        // A restart before the end: the window runs on.
        let journal = try Journal(config: config)
        let book = DigestBook(journal: journal, logger: BridgeLogger(level: .error))
        book.restore(now: Self.t0 + 10)
        #expect(book.heldNow == 3 && book.nextDue == Self.t0 + 120)
        #expect(book.due(now: Self.t0 + 60).isEmpty)
        // A restart after the end: due at once.
        let late = DigestBook(journal: journal, logger: BridgeLogger(level: .error))
        late.restore(now: Self.t0 + 500)
        let due = late.due(now: Self.t0 + 500)
        #expect(due.count == 1 && due[0].held.map(\.id) == ["id-1", "id-2", "id-3"])
        late.sent(due[0])
        #expect(late.counts["offline"]?.sent == 1)
        #expect(try journal.loadDigests().isEmpty, "a sent summary's rows are removed")
    }
}
