import Foundation
import Testing
@testable import PushBridge
@testable import PushBridgeCLI

/// What every recipe's samples must exercise besides its alerts (issue 12, "Done when"):
/// retained state at start, report by exception, a device or bridge going offline, and a
/// reload in the middle that a `changed` filter's memory survives. `RecipeTests` checks
/// each outcome; this suite checks that the outcomes worth checking are there.
@Suite("Recipe coverage")
struct RecipeCoverageTests {
    /// A recipe's samples, expectations and config (loaded without `#@ env` variables).
    struct Recipe {
        var name: String
        var samples: [TrySample]
        var expected: [Int: RecipeExpectation]
        var config: BridgeConfig

        init(_ name: String) throws {
            let dir = RecipeTests.examples.appendingPathComponent(name)
            self.name = name
            samples = try TrySamples.parse(
                try String(contentsOf: dir.appendingPathComponent("samples.tsv"), encoding: .utf8),
                path: "\(name)/samples.tsv")
            let lines = try RecipeFiles.expectations(
                try String(contentsOf: dir.appendingPathComponent("expected.tsv"), encoding: .utf8),
                path: "\(name)/expected.tsv")
            // A sample that routes hand on (`continue: true`) has a line per route: the last is
            // the message's outcome.
            expected = Dictionary(lines.map { ($0.line, $0) }, uniquingKeysWith: { _, last in last })
            config = try ConfigLoader.load(path: dir.appendingPathComponent("bridge.yml").path,
                                           environment: [:]).get()
        }

        /// Names of the filters that are `changed` filters.
        var changedFilters: Set<String> {
            Set(config.extension.filters.compactMap { filter in
                if case .changed = filter.action { return filter.name }
                return nil
            })
        }
    }

    @Test("the samples start at a fixed time and bring retained state that is not displayed",
          arguments: RecipeTests.recipes())
    func retainedStateAtStart(name: String) throws {
        let recipe = try Recipe(name)
        #expect(recipe.samples.first?.at != nil, "\(name): start samples.tsv with '#@ at' so try and the test agree")
        let retained = recipe.samples.filter(\.retain)
        #expect(!retained.isEmpty, "\(name): no '#@ retain' sample")
        for sample in retained {
            #expect(recipe.expected[sample.line]?.outcome == "not_displayed",
                    "\(name)/samples.tsv:\(sample.line): retained state should be not_displayed (retained: skip)")
        }
    }

    @Test("a changed filter suppresses a repeat, also after a reload in the middle",
          arguments: RecipeTests.recipes())
    func changedSurvivesTheReload(name: String) throws {
        let recipe = try Recipe(name)
        let changed = recipe.changedFilters
        #expect(!changed.isEmpty, "\(name): the recipe has no changed filter")
        func suppressedByChanged(_ sample: TrySample) -> Bool {
            guard let e = recipe.expected[sample.line], e.outcome == "suppressed", let by = e.decidedBy else { return false }
            return changed.contains(by)
        }
        #expect(recipe.samples.contains(where: suppressedByChanged), "\(name): no sample is suppressed by a changed filter")
        guard let reload = recipe.samples.firstIndex(where: { !$0.environment.isEmpty }) else {
            Issue.record("\(name): no '#@ env' reload in the middle")
            return
        }
        #expect(reload > 0, "\(name): the '#@ env' reload should come after some samples")
        #expect(recipe.samples[reload...].contains(where: suppressedByChanged),
                "\(name): after the reload, no sample shows a changed filter's memory surviving it")
    }

    @Test("something going offline is delivered", arguments: RecipeTests.recipes())
    func offlineIsReported(name: String) throws {
        let recipe = try Recipe(name)
        let offline = recipe.expected.values.filter { e in
            e.outcome == "delivered" && ((e.title ?? "").lowercased().contains("offline"))
        }
        #expect(!offline.isEmpty, "\(name): no delivered notification says a device or bridge is offline")
    }
}
