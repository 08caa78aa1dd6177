import Foundation
import Testing
@testable import PushBridge
@testable import PushBridgeCLI

/// The recipes' condition routes live their whole life in the samples.
///
/// `expected.tsv` checks what each sample decides; the repeats and escalation steps come
/// from no sample but from the clock that `#@ at` moves. This suite runs the samples as
/// `pushbridge try --samples` does, the due repeats and steps before each sample, and
/// demands that every condition route of a recipe is raised, repeated (when it has
/// `repeat`), escalated (when it has `escalate`) and cleared, each repeat and step
/// delivered with a display message.
@Suite("Recipe conditions")
struct RecipeConditionTests {
    /// The transitions each route's conditions went through, and the timed decisions that
    /// were not delivered (`place: outcome`).
    static func lives(of recipe: String) throws -> (kinds: [String: Set<String>], undelivered: [String], config: BridgeConfig) {
        let dir = RecipeTests.examples.appendingPathComponent(recipe)
        let samples = try TrySamples.parse(
            try String(contentsOf: dir.appendingPathComponent("samples.tsv"), encoding: .utf8),
            path: "\(recipe)/samples.tsv")
        let config = try ConfigLoader.load(path: dir.appendingPathComponent("bridge.yml").path, environment: [:]).get()
        let runner = TrySamples.Runner(configPath: dir.appendingPathComponent("bridge.yml").path,
                                       baseEnvironment: [:], logger: BridgeLogger(level: .error, sink: { _ in }),
                                       day: Date(timeIntervalSince1970: RecipeTests.localTime(minuteOfDay: 12 * 60)),
                                       defaultTime: RecipeTests.localTime(minuteOfDay: 12 * 60))
        var kinds: [String: Set<String>] = [:]
        var undelivered: [String] = []
        for sample in samples {
            for (decision, message, _) in runner.conditionsDue(before: sample) {
                guard let event = decision.conditionEvent else { continue }
                kinds[event.record.route, default: []].insert(event.kind.rawValue)
                if decision.outcome != .delivered || decision.publish.first?.topic.hasPrefix("display/") != true {
                    undelivered.append("\(message.topic) before line \(sample.line): \(event.kind.rawValue) \(decision.outcome.rawValue)")
                }
            }
            let result = try runner.decide(sample).get()
            for decision in result.handedOn + [result.decision] {
                if let event = decision.conditionEvent { kinds[event.record.route, default: []].insert(event.kind.rawValue) }
            }
        }
        return (kinds, undelivered, config)
    }

    /// The recipes that have a route with `condition:`.
    static func recipesWithConditions() -> [String] {
        RecipeTests.recipes().filter { recipe in
            let path = RecipeTests.examples.appendingPathComponent("\(recipe)/bridge.yml").path
            guard let config = try? ConfigLoader.load(path: path, environment: [:]).get() else { return false }
            return config.routes.contains { $0.condition != nil }
        }
    }

    @Test("at least three recipes use conditions")
    func recipesUseConditions() {
        #expect(Self.recipesWithConditions().count >= 3, "recipes with a condition route: \(Self.recipesWithConditions())")
    }

    @Test("each condition route is raised, repeated, escalated and cleared in the samples",
          arguments: recipesWithConditions())
    func conditionsLiveTheirLife(recipe: String) throws {
        let (kinds, undelivered, config) = try Self.lives(of: recipe)
        #expect(undelivered.isEmpty, "\(recipe): repeats or steps not delivered: \(undelivered)")
        for route in config.routes {
            guard let condition = route.condition else { continue }
            let seen = kinds[route.name] ?? []
            var wanted: Set<String> = ["raised", "cleared"]
            if condition.repeatEvery != nil { wanted.insert("repeated") }
            if !condition.escalate.isEmpty { wanted.insert("escalated") }
            #expect(wanted.isSubset(of: seen),
                    "\(recipe): route \(route.name) went through \(seen.sorted()), expected \(wanted.sorted())")
        }
    }
}
