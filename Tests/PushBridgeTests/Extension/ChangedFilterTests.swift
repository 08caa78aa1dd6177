import Foundation
import Synchronization
import Testing
@testable import PushBridge

/// The `changed` filter (report by exception), bounded filter memory and what survives a
/// reload.
@Suite("Filters: changed, max_keys and memory")
struct ChangedFilterTests {
    static func changed(_ name: String = "once", key: String = "{{ topic }}", value: String = "{{ payload.state }}",
                        deadband: Double = 0, initial: ChangedInitial = .deliver, maxKeys: Int? = nil) -> FilterConfig {
        var f = FilterConfig(name: name, action: .changed(key: try! Template.parse(key), value: try! Template.parse(value),
                                                          deadband: deadband, initial: initial))
        if let maxKeys { f.maxKeys = maxKeys }
        f.definition = "\(key)|\(value)|\(deadband)|\(initial)|\(f.maxKeys)"
        return f
    }

    static func outcome(_ stage: ExtensionStage, _ payload: JSONValue, topic: String = "home/front/door") -> String {
        let result = Mutex<StageResult?>(nil)
        stage.process(StageFixtures.request(StageFixtures.content()),
                      context: StageFixtures.context(topic: topic, payload: payload, route: "door")) { r in
            result.withLock { $0 = r }
        }
        let r = result.withLock { $0 }!
        switch r.verdict {
        case .deliver: return "passed"
        case .suppressed: return "suppressed"
        case .dropped: return "dropped"
        }
    }

    static func stage(_ filters: [FilterConfig], memory: FilterMemory = FilterMemory()) -> ExtensionStage {
        ExtensionStage(config: StageFixtures.config(filters: filters), filteringGranted: true,
                       logger: BridgeLogger(level: .error), memory: memory)
    }

    static func state(_ s: String) -> JSONValue { .object(["state": .string(s)]) }

    @Test("a value passes when it differs from the last one for its key; a repeat is suppressed")
    func reportByException() {
        let stage = Self.stage([Self.changed()])
        #expect(Self.outcome(stage, Self.state("on")) == "passed")       // first value: initial deliver
        #expect(Self.outcome(stage, Self.state("on")) == "suppressed")   // repeat
        #expect(Self.outcome(stage, Self.state("on")) == "suppressed")
        #expect(Self.outcome(stage, Self.state("off")) == "passed")
        #expect(Self.outcome(stage, Self.state("on")) == "passed")
        #expect(Self.outcome(stage, Self.state("on"), topic: "home/back/door") == "passed")  // another key
    }

    @Test("initial: suppress records the first value and stays quiet")
    func initialSuppress() {
        let stage = Self.stage([Self.changed(initial: .suppress)])
        #expect(Self.outcome(stage, Self.state("on")) == "suppressed")
        #expect(Self.outcome(stage, Self.state("off")) == "passed")
    }

    @Test("numbers compare as numbers: \"15.00\" equals 15; within the deadband is unchanged")
    func numbersAndDeadband() {
        let exact = Self.stage([Self.changed(value: "{{ payload.battery }}")])
        #expect(Self.outcome(exact, .object(["battery": .string("15.00")])) == "passed")
        #expect(Self.outcome(exact, .object(["battery": .int(15)])) == "suppressed")
        #expect(Self.outcome(exact, .object(["battery": .string("15.01")])) == "passed")
        let band = Self.stage([Self.changed(value: "{{ payload.t }}", deadband: 0.5)])
        #expect(Self.outcome(band, .object(["t": .double(20.0)])) == "passed")
        #expect(Self.outcome(band, .object(["t": .double(20.3)])) == "suppressed")
        #expect(Self.outcome(band, .object(["t": .double(20.5)])) == "suppressed")  // 0.5 apart: not more
        // The reference stays 20.0, so a slow drift is reported once it passes the deadband.
        #expect(Self.outcome(band, .object(["t": .double(20.6)])) == "passed")
        #expect(Self.outcome(band, .object(["t": .double(20.9)])) == "suppressed")
        #expect(Self.outcome(band, .object(["t": .string("n/a")])) == "passed")  // text: compared as text
        #expect(Self.outcome(band, .object(["t": .string("n/a")])) == "suppressed")
    }

    @Test("retained state teaches the filter without deciding")
    func teach() {
        let stage = Self.stage([Self.changed()])
        stage.teach(StageFixtures.context(payload: Self.state("on"), route: "door"))
        #expect(Self.outcome(stage, Self.state("on")) == "suppressed", "the live repeat of the stored state")
        #expect(Self.outcome(stage, Self.state("off")) == "passed")
    }

    @Test("max_keys bounds the memory; evictions are counted and the first is logged once")
    func evictions() {
        let lines = LogCollector()
        let memory = FilterMemory(logger: lines.logger())
        let filter = Self.changed(maxKeys: 3)
        let stage = Self.stage([filter], memory: memory)
        for i in 0..<10 { _ = Self.outcome(stage, Self.state("on"), topic: "t/\(i)") }
        #expect(memory.evictions == ["once": 7])
        #expect(lines.lines.filter { $0.contains("filter 'once' remembers at most 3 keys") }.count == 1, "\(lines.lines)")
        // the oldest keys were forgotten: t/0 passes again, t/9 is still remembered
        #expect(Self.outcome(stage, Self.state("on"), topic: "t/9") == "suppressed")
        #expect(Self.outcome(stage, Self.state("on"), topic: "t/0") == "passed")
    }

    @Test("dedupe and rate_limit count evictions too")
    func windowEvictions() {
        let memory = FilterMemory()
        var f = FilterConfig(name: "rl", action: .rateLimit(key: try! Template.parse("{{ topic }}"), max: 3, window: .seconds(60)))
        f.maxKeys = 100
        let stage = Self.stage([f], memory: memory)
        for i in 0..<150 { _ = Self.outcome(stage, Self.state("x"), topic: "t/\(i)") }
        #expect(memory.evictions == ["rl": 50])
    }

    @Test("a reload keeps the memory of unchanged filters and forgets changed or removed ones")
    func reloadKeepsUnchanged() throws {
        let memory = FilterMemory()
        let a = Self.changed("a"), b = Self.changed("b", value: "{{ payload.state }}!")
        let first = Self.stage([a, b], memory: memory)
        #expect(Self.outcome(first, Self.state("on")) == "passed")  // a passes, b passes
        let same = Self.stage([a, b], memory: memory)
        #expect(Self.outcome(same, Self.state("on")) == "suppressed", "both unchanged: both remember")
        // b's definition changes: b forgets, a still remembers → a suppresses first
        let changedB = Self.changed("b", value: "{{ payload.state }}?")
        let second = Self.stage([changedB], memory: memory)
        #expect(Self.outcome(second, Self.state("on")) == "passed", "b changed: no memory")
        memory.keep(only: [changedB])
        let third = Self.stage([a, changedB], memory: memory)
        #expect(Self.outcome(third, Self.state("on")) == "suppressed", "a was removed (forgot: its first value passes); the changed b remembers and suppresses")
    }

    @Test("a filter's memory identity is its name (position when unnamed) and definition")
    func identityFromConfig() throws {
        let yaml = """
        routes: [{topic: a/#}]
        extension:
          filters:
            - changed: {key: "{{ topic }}", value: "{{ raw }}"}
            - name: named
              changed: {key: "{{ topic }}", value: "{{ raw }}", max_keys: 20}
        """
        let one = try loadConfig(yaml).extension.filters
        let two = try loadConfig(yaml).extension.filters
        #expect(one.map(\.memoryIdentity) == two.map(\.memoryIdentity))
        #expect(one[0].name == "changed#1" && one[1].name == "named" && one[1].maxKeys == 20)
        let moved = try loadConfig(yaml.replacingOccurrences(of: "    - changed", with: "    - suppress: 'false'\n    - changed")).extension.filters
        #expect(moved[1].memoryIdentity != one[0].memoryIdentity, "an unnamed filter that moves is another filter")
        #expect(moved[2].memoryIdentity == one[1].memoryIdentity, "a named filter keeps its memory where it moves")
        let edited = try loadConfig(yaml.replacingOccurrences(of: "max_keys: 20", with: "max_keys: 30")).extension.filters
        #expect(edited[1].memoryIdentity != one[1].memoryIdentity)
    }

    @Test("changed and max_keys are validated with positions", arguments: [
        ("changed: {key: k}", "'changed' needs 'value'"),
        ("changed: {key: k, value: v, deadband: -1}", "'deadband' must be a number of at least 0"),
        ("changed: {key: k, value: v, deadband: \"1\"}", "'deadband' must be a number of at least 0"),
        ("changed: {key: k, value: v, initial: maybe}", "'initial'"),
        ("changed: {key: k, value: v, max_keys: 0}", "'max_keys'"),
        ("dedupe: {key: k, window: 1m, max_key: 5}", "did you mean 'max_keys'?"),
        ("changed: {key: k, value: v, valu: x}", "did you mean 'value'?"),
    ])
    func validation(filter: String, message: String) {
        let errors = configErrors("""
        routes: [{topic: a/#}]
        extension:
          filters:
            - \(filter)
        """)
        #expect(errors.contains { $0.hasPrefix("bridge.yml:4:") && $0.contains(message) }, "\(errors)")
    }
}
