import Foundation
import Testing
@testable import PushBridge

/// Filter memory in the journal's database: written in batches, restored on start, dropped
/// with the filter.
@Suite("Journal: filter memory")
struct FilterMemoryJournalTests {
    static func journal() throws -> Journal {
        var c = JournalConfig()
        c.path = FileManager.default.temporaryDirectory.appendingPathComponent("pb-fm-\(UUID().uuidString)").path
        return try Journal(config: c)
    }

    static func filters() throws -> [FilterConfig] {
        try loadConfig("""
        routes: [{topic: home/#}]
        extension:
          filters:
            - name: once
              changed: {key: "{{ topic }}", value: "{{ payload.state }}"}
            - name: daily
              dedupe: {key: "{{ topic }}", window: 1d}
        """).extension.filters
    }

    static func outcome(_ stage: ExtensionStage, _ state: String, topic: String) -> String {
        ChangedFilterTests.outcome(stage, .object(["state": .string(state)]), topic: topic)
    }

    @Test("changed values and dedupe windows survive a restart through the journal")
    func roundTrip() throws {
        let journal = try Self.journal()
        let clock = ManualClock()
        clock.setWall(1_790_000_000)
        let memory = FilterMemory(persistent: true)
        let filters = try Self.filters()
        let stage = ExtensionStage(config: StageFixtures.config(filters: filters), filteringGranted: true,
                                   logger: BridgeLogger(level: .error), clock: clock.stageClock, memory: memory)
        #expect(Self.outcome(stage, "on", topic: "home/a") == "passed")
        #expect(Self.outcome(stage, "off", topic: "home/b") == "passed")
        try journal.saveFilterMemory(memory.takeChanges(ClockReading(clock.stageClock)))
        #expect(memory.takeChanges(ClockReading(clock.stageClock)).isEmpty, "only what changed is written again")

        let rows = try journal.loadFilterMemory()
        #expect(rows.count == 4, "\(rows)")
        // A new process an hour later: another monotonic origin, the wall clock moved on.
        let later = ManualClock()
        later.setWall(1_790_003_600)
        let restored = FilterMemory(persistent: true)
        restored.restore(rows, clocks: ClockReading(later.stageClock))
        let again = ExtensionStage(config: StageFixtures.config(filters: filters), filteringGranted: true,
                                   logger: BridgeLogger(level: .error), clock: later.stageClock, memory: restored)
        // home/a "on" again: changed remembers it
        #expect(Self.outcome(again, "on", topic: "home/a") == "suppressed")
        // home/b "on": changed passes it, the daily dedupe (23 h left) still suppresses
        #expect(Self.outcome(again, "on", topic: "home/b") == "suppressed")
        later.advance(.seconds(23 * 3600 + 1))
        #expect(Self.outcome(again, "off", topic: "home/b") == "passed", "the day is over")
    }

    @Test("a removed or changed filter's rows are deleted")
    func droppedFilters() throws {
        let journal = try Self.journal()
        let memory = FilterMemory(persistent: true)
        let filters = try Self.filters()
        let stage = ExtensionStage(config: StageFixtures.config(filters: filters), filteringGranted: true,
                                   logger: BridgeLogger(level: .error), memory: memory)
        _ = Self.outcome(stage, "on", topic: "home/a")
        try journal.saveFilterMemory(memory.takeChanges(ClockReading(.system)))
        memory.keep(only: [filters[1]])
        try journal.saveFilterMemory(memory.takeChanges(ClockReading(.system)))
        let rows = try journal.loadFilterMemory()
        #expect(rows.map(\.filter) == [filters[1].memoryIdentity])
    }

    @Test("restored rows of a filter no longer in the config are deleted with the first batch")
    func staleRowsAtStart() throws {
        let journal = try Self.journal()
        try journal.saveFilterMemory(FilterMemoryChanges(rows: [.init(filter: "gone\u{1F}{}", key: "k", value: "v")],
                                                         droppedFilters: []))
        let memory = FilterMemory(persistent: true)
        memory.restore(try journal.loadFilterMemory(), clocks: ClockReading(.system))
        let p = Pipeline(config: try loadConfig("routes: [{topic: a/#}]"), logger: BridgeLogger(level: .error), memory: memory)
        p.shutdown()
        try journal.saveFilterMemory(memory.takeChanges(ClockReading(.system)))
        #expect(try journal.loadFilterMemory().isEmpty)
    }
}
