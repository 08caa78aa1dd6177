import Testing

/// The parsers of the recipe files: directives, columns, and malformed lines.
@Suite("Recipe files")
struct RecipeFileTests {
    @Test func directivesApplyToTheSamplesAfterThem() throws {
        let text = "# comment\n#@ at 23:30\na/b\t{}\n#@ env MODE=away\n#@ retain\nc\tx y\n\nd\t\n"
        let samples = try RecipeFiles.samples(text, path: "s")
        #expect(samples == [
            RecipeSample(line: 3, topic: "a/b", payload: "{}", retain: false, minuteOfDay: 1410, environment: [:]),
            RecipeSample(line: 6, topic: "c", payload: "x y", retain: true, minuteOfDay: 1410, environment: ["MODE": "away"]),
            RecipeSample(line: 8, topic: "d", payload: "", retain: false, minuteOfDay: 1410, environment: ["MODE": "away"]),
        ])
    }

    @Test(arguments: ["#@ at 7:00\n", "#@ at 24:00\n", "#@ env =x\n", "#@ tomorrow\n", "#@ retain\n", "no tab\n", "\tpayload\n"])
    func malformedSamplesAreErrors(text: String) {
        #expect(throws: RecipeFileError.self) { try RecipeFiles.samples(text, path: "s") }
    }

    @Test func expectationsReadOutcomeDeciderAndChecks() throws {
        let text = "# header\n4\tsuppressed:drop-it\t-\t-\n5\tdelivered\tT\tB\tcategory=X collapse_id=a=b\n"
        #expect(try RecipeFiles.expectations(text, path: "e") == [
            RecipeExpectation(line: 4, outcome: "suppressed", decidedBy: "drop-it", title: nil, body: nil),
            RecipeExpectation(line: 5, outcome: "delivered", decidedBy: nil, title: "T", body: "B",
                              checks: [.init(field: "category", value: "X"), .init(field: "collapse_id", value: "a=b")]),
        ])
    }

    @Test(arguments: ["x\tdelivered\t-\t-\n", "4\tdelivered\t-\n", "4\t\t-\t-\n", "4\tdelivered\t-\t-\tnocheck\n"])
    func malformedExpectationsAreErrors(text: String) {
        #expect(throws: RecipeFileError.self) { try RecipeFiles.expectations(text, path: "e") }
    }
}
