import Foundation
import Testing
@testable import PushBridge
@testable import PushBridgeCLI

/// The recipes' dependencies (`depends_on`) show their whole story in the samples: with the
/// parent raised, a dependent condition is raised silently (superseded: no notification),
/// and once the parent clears, the dependents still active are announced in one
/// notification of their route (collapse id `<route>-announcement`) with a display message.
@Suite("Recipe dependencies")
struct RecipeDependencyTests {
    /// The recipes with a condition route that has `depends_on`.
    static func recipesWithDependencies() -> [String] {
        RecipeTests.recipes().filter { recipe in
            let path = RecipeTests.examples.appendingPathComponent("\(recipe)/bridge.yml").path
            guard let config = try? ConfigLoader.load(path: path, environment: [:]).get() else { return false }
            return config.routes.contains { $0.condition?.dependsOn != nil }
        }
    }

    @Test("the zigbee2mqtt and tasmota-shelly recipes use depends_on")
    func recipesUseDependencies() {
        let recipes = Self.recipesWithDependencies()
        #expect(recipes.contains("zigbee2mqtt") && recipes.contains("tasmota-shelly"), "recipes with depends_on: \(recipes)")
    }

    @Test("each depends_on route is superseded in the samples, then announced once its parent cleared",
          arguments: recipesWithDependencies())
    func supersededThenAnnounced(recipe: String) throws {
        let dir = RecipeTests.examples.appendingPathComponent(recipe)
        let samples = try TrySamples.parse(
            try String(contentsOf: dir.appendingPathComponent("samples.tsv"), encoding: .utf8),
            path: "\(recipe)/samples.tsv")
        let config = try ConfigLoader.load(path: dir.appendingPathComponent("bridge.yml").path, environment: [:]).get()
        let runner = TrySamples.Runner(configPath: dir.appendingPathComponent("bridge.yml").path,
                                       baseEnvironment: [:], logger: BridgeLogger(level: .error, sink: { _ in }),
                                       day: Date(timeIntervalSince1970: RecipeTests.localTime(minuteOfDay: 12 * 60)),
                                       defaultTime: RecipeTests.localTime(minuteOfDay: 12 * 60))
        var superseded: [String: Int] = [:]  // route -> superseded raises (nothing published)
        var announced: [String: [String]] = [:]  // route -> the announcements' titles
        // An announcement among the due decisions: its route's title, with a display message.
        func collect(_ due: [(decision: Decision, message: InboundMessage, at: Double)], at place: String) {
            for (decision, _, _) in due {
                guard let route = decision.route, decision.outcome == .delivered,
                      decision.request?.collapseID == "\(route)-announcement" else { continue }
                #expect(decision.publish.first?.topic.hasPrefix("display/") == true,
                        "\(recipe): the announcement \(place) has no display message")
                announced[route, default: []].append(decision.request?.content.title ?? "")
            }
        }
        for sample in samples {
            collect(runner.conditionsDue(before: sample), at: "before line \(sample.line)")
            let result = try runner.decide(sample).get()
            for decision in result.handedOn + [result.decision] where decision.rule.contains("superseded") {
                guard let route = decision.route else { continue }
                #expect(decision.outcome == .notDisplayed && decision.publish.isEmpty,
                        "\(recipe)/samples.tsv:\(sample.line): a superseded raise publishes nothing (\(decision.rule))")
                superseded[route, default: 0] += 1
            }
        }
        collect(runner.conditionsDueAfterLast(), at: "after the last sample")
        for route in config.routes {
            guard let parent = route.condition?.dependsOn else { continue }
            #expect((superseded[route.name] ?? 0) > 0, "\(recipe): no condition of \(route.name) is superseded in the samples")
            let titles = announced[route.name] ?? []
            #expect(titles.count == 1, "\(recipe): \(route.name) is announced \(titles.count) times: \(titles)")
            #expect(titles.allSatisfy { $0.hasPrefix("\(route.name): ") && $0.hasSuffix("after \(parent) cleared") }, "\(titles)")
        }
    }
}
