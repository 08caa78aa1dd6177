import Foundation
import Synchronization
import Testing
@testable import PushBridge

@Suite("Declarative filters")
struct FilterTests {
    static func expr(_ s: String) -> PushBridge.Expression { try! PushBridge.Expression.parse(s) }
    static func tpl(_ s: String) -> Template { try! Template.parse(s) }

    static func filter(_ name: String, _ action: FilterAction, when: String? = nil, routes: [String]? = nil) -> FilterConfig {
        var f = FilterConfig(name: name, action: action)
        f.when = when.map(expr)
        f.routes = routes
        return f
    }

    static func stage(_ filters: [FilterConfig], granted: Bool = true, clock: ManualClock = ManualClock()) -> ExtensionStage {
        ExtensionStage(config: StageFixtures.config(filters: filters), filteringGranted: granted,
                       logger: BridgeLogger(level: .error), clock: clock.stageClock)
    }

    static let payload: JSONValue = .object(["level": .string("debug"), "room": .string("hall"),
                                             "count": .int(4), "state": .string("open")])

    static func run(_ stage: ExtensionStage, payload: JSONValue = FilterTests.payload, route: String = "door",
                    content: NotificationContent = StageFixtures.content()) -> StageResult {
        let result = Mutex<StageResult?>(nil)
        stage.process(StageFixtures.request(content),
                      context: StageFixtures.context(payload: payload, route: route)) { r in result.withLock { $0 = r } }
        return result.withLock { $0 }!   // filter-only stages complete inline
    }

    @Test func suppressWhenTrue() {
        let stage = Self.stage([Self.filter("debug", .suppress(Self.expr(#"payload.level == "debug""#)))])
        #expect(Self.run(stage).verdict == .suppressed(decidedBy: "debug"))
        let info = Self.run(stage, payload: .object(["level": .string("info")]))
        #expect(info.verdict == .deliver(StageFixtures.content(), modified: false))
        #expect(info.filterTrace == [FilterTrace(name: "debug", verdict: "passed")])
    }

    /// The first entry of a trace is the filter's shared one-entry array when its verdict is a
    /// usual one: what later messages add to or change in theirs never shows in another's.
    @Test("traces that start alike stay apart across messages")
    func sharedTraceEntries() {
        let stage = Self.stage([
            Self.filter("debug", .suppress(Self.expr(#"payload.level == "debug""#))),
            Self.filter("hall", .suppress(Self.expr(#"payload.room == "hall""#)), when: "payload.count > 1"),
        ])
        let passedThenSuppressed = Self.run(stage, payload: .object(["level": .string("info"), "room": .string("hall"), "count": .int(4)]))
        let passedThenSkipped = Self.run(stage, payload: .object(["level": .string("info"), "count": .int(0)]))
        let suppressedFirst = Self.run(stage)
        let passedTwice = Self.run(stage, payload: .object(["level": .string("info"), "room": .string("attic"), "count": .int(4)]))
        let notApplied = Self.run(Self.stage([Self.filter("debug", .suppress(Self.expr("true")))], granted: false))
        let suppressedAlone = Self.run(Self.stage([Self.filter("debug", .suppress(Self.expr("true")))]))
        #expect(passedThenSuppressed.filterTrace == [FilterTrace(name: "debug", verdict: "passed"), FilterTrace(name: "hall", verdict: "suppressed")])
        #expect(passedThenSkipped.filterTrace == [FilterTrace(name: "debug", verdict: "passed"), FilterTrace(name: "hall", verdict: "skipped (when false)")])
        #expect(suppressedFirst.filterTrace == [FilterTrace(name: "debug", verdict: "suppressed")])
        #expect(passedTwice.filterTrace == [FilterTrace(name: "debug", verdict: "passed"), FilterTrace(name: "hall", verdict: "passed")])
        #expect(notApplied.filterTrace == [FilterTrace(name: "debug", verdict: "suppressed — not applied: entitlement missing")])
        #expect(suppressedAlone.filterTrace == [FilterTrace(name: "debug", verdict: "suppressed")])
        #expect(Self.run(stage).filterTrace == [FilterTrace(name: "debug", verdict: "suppressed")], "the shared entry as it was")
    }

    @Test func suppressWithoutEntitlementIsNotApplied() {
        let stage = Self.stage([Self.filter("debug", .suppress(Self.expr("true")))], granted: false)
        let result = Self.run(stage)
        #expect(result.verdict == .deliver(StageFixtures.content(), modified: false))
        #expect(result.filterTrace == [FilterTrace(name: "debug", verdict: "suppressed — not applied: entitlement missing")])
    }

    @Test func whenAndRoutesSkip() {
        let stage = Self.stage([
            Self.filter("other-route", .suppress(Self.expr("true")), routes: ["garage"]),
            Self.filter("cold", .suppress(Self.expr("true")), when: "payload.count > 10"),
            Self.filter("mark", .set([(field: "subtitle", value: Self.tpl("seen"))]), when: "payload.count > 1", routes: ["door"]),
        ])
        let result = Self.run(stage)
        #expect(result.filterTrace == [FilterTrace(name: "other-route", verdict: "skipped (route)"),
                                       FilterTrace(name: "cold", verdict: "skipped (when false)"),
                                       FilterTrace(name: "mark", verdict: "set subtitle")])
        #expect(result.deliveredContent?.subtitle == "seen")
    }

    @Test func setRendersEveryField() {
        let stage = Self.stage([Self.filter("rewrite", .set([
            (field: "title", value: Self.tpl("{{ payload.room }}: {{ content.title }}")),
            (field: "badge", value: Self.tpl("{{ payload.count + 1 }}")),
            (field: "relevance_score", value: Self.tpl("{{ 3 / 4 }}")),
            (field: "interruption_level", value: Self.tpl("time-sensitive")),
            (field: "sound", value: Self.tpl("default")),
            (field: "thread_id", value: Self.tpl("{{ topic }}")),
            (field: "category", value: Self.tpl("DOOR")),
            (field: "target_content_id", value: Self.tpl("t-{{ payload.state }}")),
            (field: "filter_criteria", value: Self.tpl("home")),
            (field: "user_info", value: Self.tpl("{{ payload }}")),
        ]))])
        let c = Self.run(stage).deliveredContent
        #expect(c?.title == "hall: Original")
        #expect(c?.badge == 5)
        #expect(c?.relevanceScore == 0.75)
        #expect(c?.interruptionLevel == "time-sensitive")
        #expect(c?.sound == "default")
        #expect(c?.threadID == "home/front/door")
        #expect(c?.category == "DOOR")
        #expect(c?.targetContentID == "t-open")
        #expect(c?.filterCriteria == "home")
        #expect(c?.userInfo == Self.payload)
    }

    @Test func setSeesContentBeforeItAndLaterFiltersSeeTheResult() {
        let stage = Self.stage([
            Self.filter("swap", .set([(field: "title", value: Self.tpl("{{ content.body }}")),
                                      (field: "body", value: Self.tpl("{{ content.title }}"))])),
            Self.filter("check", .suppress(Self.expr(#"content.title == "Hello""#))),
        ])
        #expect(Self.run(stage).verdict == .suppressed(decidedBy: "check"))
        let swapOnly = Self.stage([Self.filter("swap", .set([(field: "title", value: Self.tpl("{{ content.body }}")),
                                                             (field: "body", value: Self.tpl("{{ content.title }}"))]))])
        let c = Self.run(swapOnly).deliveredContent
        #expect(c?.title == "Hello" && c?.body == "Original")
    }

    @Test func setRejectsBadValuesAndKeepsTheField() {
        let stage = Self.stage([Self.filter("bad", .set([
            (field: "badge", value: Self.tpl("{{ payload.room }}")),
            (field: "relevance_score", value: Self.tpl("high")),
            (field: "interruption_level", value: Self.tpl("loud")),
            (field: "title", value: Self.tpl("ok")),
        ]))])
        let result = Self.run(stage, content: { var c = StageFixtures.content(); c.badge = 2; return c }())
        #expect(result.deliveredContent?.badge == 2)
        #expect(result.deliveredContent?.title == "ok")
        let verdict = result.filterTrace.first?.verdict ?? ""
        #expect(verdict.hasPrefix("set title (ignored: "))
        #expect(verdict.contains("badge 'hall'") && verdict.contains("relevance_score 'high'") && verdict.contains("'loud'"))
    }

    @Test func setEmptyingAllTextStopsTheChain() {
        let stage = Self.stage([
            Self.filter("blank", .set([(field: "title", value: Self.tpl("{{ payload.missing }}")),
                                       (field: "body", value: Self.tpl(""))])),
            Self.filter("never-reached", .set([(field: "title", value: Self.tpl("back"))])),
        ])
        let result = Self.run(stage)
        #expect(result.verdict == .suppressed(decidedBy: "blank"))
        #expect(result.filterTrace.map(\.name) == ["blank"])
    }

    @Test func dedupeWithinWindow() {
        let clock = ManualClock()
        let stage = Self.stage([Self.filter("dup", .dedupe(key: Self.tpl("{{ topic }}/{{ payload.state }}"),
                                                           window: .seconds(600)))], clock: clock)
        #expect(Self.run(stage).outcome == "delivered")
        #expect(Self.run(stage).verdict == .suppressed(decidedBy: "dup"))
        #expect(Self.run(stage, payload: .object(["state": .string("closed")])).outcome == "delivered")
        clock.advance(.seconds(599))
        #expect(Self.run(stage).outcome == "suppressed")
        clock.advance(.seconds(1))
        #expect(Self.run(stage).outcome == "delivered")
        #expect(Self.run(stage).filterTrace == [FilterTrace(name: "dup", verdict: "suppressed (duplicate)")])
    }

    @Test func rateLimitSlidingWindow() {
        let clock = ManualClock()
        let stage = Self.stage([Self.filter("rate", .rateLimit(key: Self.tpl("{{ topic }}"), max: 2,
                                                               window: .seconds(60)))], clock: clock)
        #expect(Self.run(stage).outcome == "delivered")          // t=0
        clock.advance(.seconds(30))
        #expect(Self.run(stage).outcome == "delivered")          // t=30
        #expect(Self.run(stage).outcome == "suppressed")         // t=30, third in the window
        clock.advance(.seconds(30))
        #expect(Self.run(stage).outcome == "delivered")          // t=60: the t=0 hit has left
        #expect(Self.run(stage).filterTrace.first?.verdict == "suppressed (rate limit)")
        clock.advance(.seconds(30))
        #expect(Self.run(stage).outcome == "delivered")          // t=90: the t=30 hit has left
    }

    static let berlinQuiet = FilterAction.quietHours(
        fromMinute: 22 * 60, toMinute: 7 * 60, timezone: "Europe/Berlin",
        unless: expr(#"content.interruption_level in ["time-sensitive", "critical"]"#))

    @Test(arguments: [(1_768_516_200.0, true), (1_768_474_800, false), (1_768_456_740, true), (1_768_456_800, false)])
    func quietHoursInTheirTimeZone(wall: Double, quiet: Bool) {
        let clock = ManualClock()
        clock.setWall(wall)
        let stage = Self.stage([Self.filter("night", Self.berlinQuiet)], clock: clock)
        #expect(Self.run(stage).outcome == (quiet ? "suppressed" : "delivered"))
    }

    @Test func quietHoursUnless() {
        let clock = ManualClock()
        clock.setWall(1_768_516_200)   // 23:30 in Berlin
        let stage = Self.stage([Self.filter("night", Self.berlinQuiet)], clock: clock)
        var urgent = StageFixtures.content()
        urgent.interruptionLevel = "critical"
        let result = Self.run(stage, content: urgent)
        #expect(result.outcome == "delivered")
        #expect(result.filterTrace == [FilterTrace(name: "night", verdict: "passed (quiet hours, unless true)")])
    }

    @Test(arguments: [(22 * 60, 7 * 60), (9 * 60, 17 * 60), (0, 1), (23 * 60 + 59, 0), (600, 600)])
    func quietHoursWindowEveryMinute(from: Int, to: Int) {
        let hours = QuietHours(fromMinute: from, toMinute: to)
        for minute in 0..<1440 {
            // Walk from `from` toward `to`: inside exactly when reached before `to`.
            let length = (to - from + 1440) % 1440
            let offset = (minute - from + 1440) % 1440
            #expect(hours.contains(minute: minute) == (offset < length), "minute \(minute)")
        }
    }
}

@Suite("Bounded key memory")
struct KeyedWindowsTests {
    @Test func evictsTheOldestBeyondCapacity() {
        let w = KeyedWindows(capacity: 3)
        let window = Duration.seconds(100)
        for key in ["a", "b", "c"] { #expect(w.admit(key, now: .seconds(1), window: window, max: 1)) }
        #expect(w.admit("d", now: .seconds(2), window: window, max: 1))
        #expect(w.count == 3)
        #expect(!w.contains("a") && w.contains("b") && w.contains("d"))
        #expect(w.admit("a", now: .seconds(3), window: window, max: 1), "an evicted key starts afresh")
        #expect(!w.contains("b"))
    }

    @Test func refusedHitsDoNotRefreshAndExpiredKeysLeave() {
        let w = KeyedWindows(capacity: 10)
        #expect(w.admit("k", now: .seconds(0), window: .seconds(10), max: 1))
        #expect(!w.admit("k", now: .seconds(9), window: .seconds(10), max: 1))
        #expect(w.admit("k", now: .seconds(10), window: .seconds(10), max: 1))
        #expect(w.admit("other", now: .seconds(25), window: .seconds(10), max: 1))
        #expect(!w.contains("k"), "expired at the front")
    }

    @Test func stayBoundedUnderManyKeys() {
        let w = KeyedWindows(capacity: 10_000)
        for i in 0..<25_000 { _ = w.admit("key\(i % 12_000)", now: .milliseconds(i), window: .seconds(3600), max: 3) }
        #expect(w.count == 10_000)
    }
}
