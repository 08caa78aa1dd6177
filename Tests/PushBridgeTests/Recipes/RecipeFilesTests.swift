import Foundation
import Testing
@testable import PushBridge
@testable import PushBridgeCLI

/// The parsers of the recipe files: directives, columns, and malformed lines.
@Suite("Recipe files")
struct RecipeFileTests {
    @Test func directivesApplyToTheSamplesAfterThem() throws {
        let text = "# comment\nz\t1\n#@ at 23:30\na/b\t{}\n#@ env MODE=away\n#@ retain\nc\tx y\n\n#@ at 2026-03-05T07:05\nd\t\r\n"
        let samples = try TrySamples.parse(text, path: "s")
        func sample(_ line: Int, _ topic: String, _ payload: String, retain: Bool = false, at: String?,
                    env: [String: String] = [:]) -> TrySample {
            var s = TrySample(line: line, topic: topic, payload: payload)
            s.retain = retain
            s.at = at
            s.environment = env
            return s
        }
        #expect(samples == [
            sample(2, "z", "1", at: nil),
            sample(4, "a/b", "{}", at: "23:30"),
            sample(7, "c", "x y", retain: true, at: "23:30", env: ["MODE": "away"]),
            sample(10, "d", "", at: "2026-03-05T07:05", env: ["MODE": "away"]),
        ])
    }

    @Test(arguments: ["#@ at 7:00\n", "#@ at 24:00\n", "#@ at 2026-02-30T10:00\n", "#@ at 2026-3-04T10:00\n",
                      "#@ env =x\n", "#@ tomorrow\n", "#@ retain\n", "no tab\n", "\tpayload\n"])
    func malformedSamplesAreErrors(text: String) {
        #expect(throws: TrySampleError.self) { try TrySamples.parse(text, path: "s") }
    }

    @Test func sampleTimesAreLocalTime() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        let day = calendar.date(from: DateComponents(year: 2026, month: 3, day: 4, hour: 12))!
        let t = try #require(SampleTime.unixSeconds("22:30", day: day))
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: Date(timeIntervalSince1970: t))
        #expect([parts.year, parts.month, parts.day, parts.hour, parts.minute] == [2026, 3, 4, 22, 30])
        #expect(SampleTime.unixSeconds("2026-03-04T22:30", day: Date()) == t)
    }

    @Test func expectationsReadOutcomeDeciderAndChecks() throws {
        let text = "# header\n4\tsuppressed:drop-it\t-\t-\n5\tdelivered\tT\tB\tcategory=X collapse_id=a=b\n"
        #expect(try RecipeFiles.expectations(text, path: "e") == [
            RecipeExpectation(line: 4, outcome: "suppressed", decidedBy: "drop-it", title: nil, body: nil),
            RecipeExpectation(line: 5, outcome: "delivered", decidedBy: nil, title: "T", body: "B",
                              checks: [.init(field: "category", value: "X"), .init(field: "collapse_id", value: "a=b")]),
        ])
    }

    @Test func attachmentsCheckNamesTheAttachedIdentifiers() throws {
        let checks = try RecipeFiles.expectations("5\tdelivered\tT\tB\tattachments=snapshot,event\n", path: "e")[0].checks
        #expect(checks == [.init(field: "attachments", value: "snapshot,event")])
        var request = NotificationRequest(id: "r", pushType: .alert, priority: 10)
        #expect(RecipeTests.field("attachments", of: request) == "-")
        request.content.attachments = [
            NotificationAttachment(identifier: "snapshot", type: "image/jpeg", size: 3, file: "/tmp/snapshot.jpg"),
            NotificationAttachment(identifier: "event", type: "image/jpeg", size: 4, file: "/tmp/event.jpg"),
        ]
        #expect(RecipeTests.field("attachments", of: request) == "snapshot,event")
    }

    @Test(arguments: ["x\tdelivered\t-\t-\n", "4\tdelivered\t-\n", "4\t\t-\t-\n", "4\tdelivered\t-\t-\tnocheck\n"])
    func malformedExpectationsAreErrors(text: String) {
        #expect(throws: RecipeFileError.self) { try RecipeFiles.expectations(text, path: "e") }
    }
}
