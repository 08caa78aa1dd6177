import Foundation
import Testing
@testable import PushBridge
@testable import PushBridgeCLI

/// Runs every recipe under `examples/` on its own samples and checks the notifications.
///
/// Each `examples/<name>/` with a `samples.tsv` is one test case, run exactly as
/// `pushbridge try --samples` runs it (`TrySamples.Runner`): one pipeline in file order
/// (so `dedupe`, `rate_limit` and `changed` see the earlier samples), `#@ env` reloading
/// the file with unchanged filters keeping their memory, `#@ retain` and `#@ at` (local
/// time on 2026-03-04, 12:00 before the first), so the night-only rules pass at any hour,
/// and `#@ attach` (the bytes of a file stand in for an attachment's topic or URL).
/// Each decision is compared with `expected.tsv`.
@Suite("Recipes")
struct RecipeTests {
    /// `examples/` in this checkout, found from this file's path.
    static let examples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Recipes
        .deletingLastPathComponent()  // PushBridgeTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repository root
        .appendingPathComponent("examples")

    /// The recipe folders that have samples, sorted.
    static func recipes() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: examples.path)) ?? []
        return names.filter {
            FileManager.default.fileExists(atPath: examples.appendingPathComponent("\($0)/samples.tsv").path)
        }.sorted()
    }

    @Test("every examples/ folder is complete and listed in examples/README.md")
    func foldersAreComplete() throws {
        let fm = FileManager.default
        let index = try String(contentsOf: Self.examples.appendingPathComponent("README.md"), encoding: .utf8)
        let folders = try fm.contentsOfDirectory(atPath: Self.examples.path).filter { name in
            var isDirectory: ObjCBool = false
            return fm.fileExists(atPath: Self.examples.appendingPathComponent(name).path, isDirectory: &isDirectory)
                && isDirectory.boolValue
        }
        #expect(Self.recipes().count >= 4, "expected the zigbee2mqtt, frigate, homeassistant and plug recipes")
        for name in folders {
            let dir = Self.examples.appendingPathComponent(name)
            #expect(fm.fileExists(atPath: dir.appendingPathComponent("README.md").path), "\(name) has no README.md")
            #expect(index.contains("(\(name)/)"), "examples/README.md does not link \(name)/")
            if fm.fileExists(atPath: dir.appendingPathComponent("bridge.yml").path) {
                for file in ["samples.tsv", "expected.tsv"] {
                    #expect(fm.fileExists(atPath: dir.appendingPathComponent(file).path), "\(name) has no \(file)")
                }
            }
        }
    }

    @Test("the recipe's samples give the expected notifications", arguments: recipes())
    func samplesGiveExpectedNotifications(recipe: String) async throws {
        let dir = Self.examples.appendingPathComponent(recipe)
        let samplesPath = dir.appendingPathComponent("samples.tsv").path
        let expectedPath = dir.appendingPathComponent("expected.tsv").path
        // The full path: `#@ attach NAME=FILE` names a file relative to the samples file's folder.
        let samples = try TrySamples.parse(try String(contentsOfFile: samplesPath, encoding: .utf8),
                                           path: samplesPath)
        let expected = try RecipeFiles.expectations(try String(contentsOfFile: expectedPath, encoding: .utf8),
                                                    path: "\(recipe)/expected.tsv")
        #expect(!samples.isEmpty, "\(recipe)/samples.tsv has no samples")
        // One line per sample, in order; a sample that routes with `continue: true` hand on has
        // one line per route that decides it, in that order.
        let lines = expected.map(\.line).enumerated().filter { $0.offset == 0 || expected[$0.offset - 1].line != $0.element }.map(\.element)
        #expect(lines == samples.map(\.line),
                "\(recipe)/expected.tsv must have one line per sample, in order (sample lines \(samples.map(\.line)))")
        let byLine = Dictionary(grouping: expected, by: \.line)
        // The same runner as `pushbridge try --samples`; the environment is the `#@ env`
        // lines only (the developer's shell cannot change the result), the day 2026-03-04,
        // 12:00 before the first `#@ at`.
        let runner = TrySamples.Runner(configPath: dir.appendingPathComponent("bridge.yml").path,
                                       baseEnvironment: [:], logger: BridgeLogger(level: .error, sink: { _ in }),
                                       day: Date(timeIntervalSince1970: Self.localTime(minuteOfDay: 12 * 60)),
                                       defaultTime: Self.localTime(minuteOfDay: 12 * 60))
        for sample in samples {
            guard let rows = byLine[sample.line] else { continue }
            // The conditions' repeats and steps due before it happen first, as in `try --samples`
            // (a clear may read how far its condition got); RecipeConditionTests checks them.
            _ = runner.conditionsDue(before: sample)
            let result = try runner.decide(sample).get()
            let decisions = result.handedOn + [result.decision]
            #expect(rows.count == decisions.count,
                    "\(recipe)/samples.tsv:\(sample.line): \(decisions.count) route(s) decide it (\(decisions.map { $0.route ?? "-" })), expected.tsv has \(rows.count) line(s) for it")
            for (decision, expectation) in zip(decisions, rows) {
                Self.check(decision, against: expectation, at: "\(recipe)/samples.tsv:\(sample.line)")
            }
        }
    }

    /// UNIX seconds of `minuteOfDay` on 2026-03-04 in the local time zone (the zone `hour` uses).
    static func localTime(minuteOfDay: Int) -> Double {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        let parts = DateComponents(year: 2026, month: 3, day: 4, hour: minuteOfDay / 60, minute: minuteOfDay % 60)
        return calendar.date(from: parts)!.timeIntervalSince1970
    }

    /// Records an issue for each way `decision` differs from `expectation`.
    static func check(_ decision: Decision, against expectation: RecipeExpectation, at place: String) {
        let explained = "\(place): \(decision.outcome.rawValue) (\(decision.rule))"
        #expect(decision.outcome.rawValue == expectation.outcome, "\(explained); expected \(expectation.outcome)")
        if let by = expectation.decidedBy {
            let actual = decision.outcome == .rejected ? decision.rejection?.reason.rawValue : decision.decidedBy
            #expect(actual == by, "\(explained): decided by \(actual ?? "nothing"), expected \(by)")
        }
        guard decision.outcome == .delivered, let request = decision.request else {
            #expect(expectation.title == nil && expectation.body == nil && expectation.checks.isEmpty,
                    "\(place): nothing is shown for \(decision.outcome.rawValue); use - for title and body")
            return
        }
        #expect(request.content.title == expectation.title, "\(place): title")
        #expect(request.content.body == expectation.body, "\(place): body")
        #expect(decision.publish.first?.topic.hasPrefix("display/") == true, "\(place): no display message")
        for check in expectation.checks {
            #expect(field(check.field, of: request) == check.value, "\(place): \(check.field)")
        }
    }

    /// A request field by its bridge.yml name, for `field=value` checks (`attachments`: the
    /// identifiers attached, comma-separated, or `-`).
    static func field(_ name: String, of request: NotificationRequest) -> String? {
        let c = request.content
        switch name {
        case "subtitle": return c.subtitle
        case "sound": return c.sound
        case "sound_critical": return String(c.soundCritical)
        case "thread_id": return c.threadID
        case "category": return c.category
        case "interruption_level": return c.interruptionLevel
        case "target_content_id": return c.targetContentID
        case "collapse_id": return request.collapseID
        case "push_type": return request.pushTypeName
        case "attachments":
            // The identifiers attached to the delivered request, in order; `-` for none.
            let identifiers = c.attachments.map(\.identifier)
            return identifiers.isEmpty ? "-" : identifiers.joined(separator: ",")
        default:
            Issue.record("unknown check field '\(name)'")
            return nil
        }
    }
}
