import Foundation
import Testing
@testable import PushBridge

/// An output's daily budget, without a service: the ledger's verdicts and `OutputBudget`'s
/// holding, summaries, day change and journal.
@Suite struct OutputBudgetTests {
    static let day = "2027-01-15"

    @Test func ledgerWithFivePerDay() {
        var l = OutputBudgetLedger(config: OutputBudgetConfig(perDay: 5), day: Self.day)
        // Alerts 1–4 go; the 5th finds 4 used (80 %) and is held, as every non-critical one after it.
        for n in 1...4 {
            #expect(l.admit(critical: false, withdraw: false, deliveries: 1, today: Self.day) == .send, "alert \(n)")
        }
        #expect(l.newMarks() == [.digesting])
        #expect(l.newMarks() == [], "each point once a day")
        #expect(l.admit(critical: false, withdraw: false, deliveries: 1, today: Self.day) == .hold)
        #expect(l.used == 4, "held is not counted")
        #expect(l.admit(critical: false, withdraw: true, deliveries: 1, today: Self.day) == .send, "a withdraw is never held")
        #expect(l.used == 5)
        #expect(l.newMarks() == [.full])
        #expect(l.admit(critical: false, withdraw: false, deliveries: 1, today: Self.day) == .drop)
        #expect(l.admit(critical: false, withdraw: true, deliveries: 1, today: Self.day) == .drop)
        #expect(l.admitSummary(deliveries: 1, today: Self.day) == false, "no summary once the day is used up")
        #expect(l.admit(critical: true, withdraw: false, deliveries: 1, today: Self.day) == .send, "critical always goes")
        #expect(l.used == 6, "and counts")
        // Midnight: a new day starts from nothing, and its points are reported again.
        #expect(l.admit(critical: false, withdraw: false, deliveries: 1, today: "2027-01-16") == .send)
        #expect(l.used == 1 && l.day == "2027-01-16")
        #expect(l.newMarks() == [])
    }

    @Test func ledgerEdgeSizes() {
        var one = OutputBudgetLedger(config: OutputBudgetConfig(perDay: 1), day: Self.day)
        #expect(one.admit(critical: false, withdraw: false, deliveries: 1, today: Self.day) == .send)
        #expect(one.newMarks() == [.digesting, .full])
        #expect(one.admit(critical: false, withdraw: false, deliveries: 1, today: Self.day) == .drop)
        var ten = OutputBudgetLedger(config: OutputBudgetConfig(perDay: 10), day: Self.day, used: 7)
        #expect(ten.admit(critical: false, withdraw: false, deliveries: 1, today: Self.day) == .send)
        #expect(ten.admit(critical: false, withdraw: false, deliveries: 1, today: Self.day) == .hold, "8 of 10 used")
        let summaries = (1...3).map { _ in ten.admitSummary(deliveries: 1, today: Self.day) }
        #expect(summaries == [true, true, false] && ten.used == 10)
        // A delivery with several targets (Web Push subscriptions) counts each.
        var multi = OutputBudgetLedger(config: OutputBudgetConfig(perDay: 10), day: Self.day)
        let verdict = multi.admit(critical: false, withdraw: false, deliveries: 3, today: Self.day)
        #expect(verdict == .send && multi.used == 3)
    }

    @Test func localDayFollowsTheProcessTimeZone() {
        let noon = Self.localNoon()
        let parts = Calendar.current.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: noon))
        let expected = String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
        #expect(OutputBudgetLedger.localDay(noon) == expected)
        #expect(OutputBudgetLedger.localDay(noon + 86_400) != expected)
        #expect(OutputBudgetLedger.localDay(Self.startOfDay(noon) - 1) != expected, "the second before local midnight is the day before")
        #expect(OutputBudgetLedger.localDay(Self.startOfDay(noon)) == expected)
    }

    static func item(_ key: String, route: String, title: String, level: String = "active") -> OutputItem {
        OutputItem(alertID: key, route: route, displayJSON: Array(#"{"id":"\#(key)","source_topic":"t/\#(key)","route":"\#(route)","title":"\#(title)","body":"b","subtitle":"s","interruption_level":"\#(level)"}"#.utf8))
    }

    @Test func holdsPerRouteAndSummarisesEachRouteOnceAcrossARestart() throws {
        let dir = NSTemporaryDirectory() + "pushbridge-budget-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var config = JournalConfig()
        config.path = dir
        let now = Self.localNoon()
        let log = LogCollector()
        let stats = OutputStats(name: "phones", kind: "ntfy")
        do {
            let journal = try Journal(config: config)
            let budget = OutputBudget(output: "phones", config: OutputBudgetConfig(perDay: 10), journal: journal, stats: stats,
                                      logger: log.logger(level: .debug), now: now)
            for n in 1...8 { #expect(budget.admit(Self.item("a\(n)", route: "door", title: "A\(n)"), deliveries: 1, now: now)) }
            #expect(!budget.admit(Self.item("d1", route: "door", title: "Door 1"), deliveries: 1, now: now + 1))
            #expect(!budget.admit(Self.item("w1", route: "window", title: "Window 1"), deliveries: 1, now: now + 2))
            #expect(!budget.admit(Self.item("d2", route: "door", title: "Door 2"), deliveries: 1, now: now + 3))
            #expect(!budget.admit(Self.item("d2", route: "door", title: "Door 2"), deliveries: 1, now: now + 4), "a replay is held once")
            #expect(budget.admit(Self.item("c1", route: "door", title: "Fire", level: "critical"), deliveries: 1, now: now + 5))
            #expect(stats.budgetDigested.load(ordering: .relaxed) == 3)
            #expect(stats.budgetUsed.load(ordering: .relaxed) == 9)
            #expect(budget.nextDue == now + 1 + OutputBudget.summaryEvery)
            #expect(budget.release(now: now + 600, targets: { _ in [""] }).isEmpty, "nothing due before 15 minutes")
        }
        // A restart: the count and the held alerts come back, and are summarised at once.
        let journal = try Journal(config: config)
        let stats2 = OutputStats(name: "phones", kind: "ntfy")
        let budget = OutputBudget(output: "phones", config: OutputBudgetConfig(perDay: 10), journal: journal, stats: stats2,
                                  logger: log.logger(level: .debug), now: now + 700)
        #expect(stats2.budgetUsed.load(ordering: .relaxed) == 9)
        let released = budget.release(now: now + 700, targets: { _ in [""] })
        #expect(released.map(\.item.route) == ["door"], "the 10th delivery is door's summary; window's finds the day used up")
        let door = try #require(OutputMessage(json: released.first?.item.json ?? []))
        #expect(door.title == "2 more: door")
        #expect(door.body == "Door 1, Door 2")
        #expect(door.collapseID == "door-digest")
        #expect(door.route == "door" && door.text("subtitle") == nil && door.interruptionLevel == "active")
        #expect(released.first?.stored == [true])
        #expect(stats2.budgetDropped.load(ordering: .relaxed) == 1)
        #expect(stats2.budgetUsed.load(ordering: .relaxed) == 10)
        #expect(try journal.budgetHeld(output: "phones").isEmpty)
        #expect(try journal.pendingOutputDeliveries(output: "phones") == 1, "the summary is stored as a delivery")
        #expect(budget.nextDue == nil)
        #expect(log.lines.contains { $0.contains("its 10 deliveries a day are used") })
    }

    @Test func withoutAJournalSummariesComeEveryFifteenMinutesPerRoute() {
        let now = Self.localNoon()
        let stats = OutputStats(name: "hook", kind: "webhook")
        let budget = OutputBudget(output: "hook", config: OutputBudgetConfig(perDay: 100), journal: nil, stats: stats,
                                  logger: LogCollector().logger(level: .debug), now: now)
        for n in 1...80 { _ = budget.admit(Self.item("a\(n)", route: "door", title: "A\(n)"), deliveries: 1, now: now) }
        #expect(!budget.admit(Self.item("d1", route: "door", title: "D1"), deliveries: 1, now: now + 10))
        #expect(!budget.admit(Self.item("w1", route: "window", title: "W1"), deliveries: 1, now: now + 20))
        #expect(budget.release(now: now + 909, targets: { _ in [""] }).isEmpty)
        #expect(budget.release(now: now + 910, targets: { _ in [""] }).map(\.item.route) == ["door"])
        #expect(budget.release(now: now + 920, targets: { _ in [""] }).map(\.item.route) == ["window"])
        #expect(!budget.admit(Self.item("d2", route: "door", title: "D2"), deliveries: 1, now: now + 930))
        #expect(budget.nextDue == now + 930 + 900, "a new window opens with the next held alert")
        #expect(stats.budgetUsed.load(ordering: .relaxed) == 82)
    }

    /// Noon (local time) of a day in 2027: far from midnight either way.
    static func localNoon() -> Double {
        Calendar.current.date(bySettingHour: 12, minute: 0, second: 0, of: Date(timeIntervalSince1970: 1_800_000_000))!
            .timeIntervalSince1970
    }

    static func startOfDay(_ t: Double) -> Double {
        Calendar.current.startOfDay(for: Date(timeIntervalSince1970: t)).timeIntervalSince1970
    }
}
