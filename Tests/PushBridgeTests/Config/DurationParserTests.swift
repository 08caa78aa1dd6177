import Testing
@testable import PushBridge

@Suite struct DurationParserTests {
    @Test(arguments: [
        ("250ms", Duration.milliseconds(250)), ("30s", .seconds(30)), ("10m", .seconds(600)),
        ("2h", .seconds(7200)), ("1d", .seconds(86_400)), ("45", .seconds(45)), ("0", .zero),
        ("1.5s", .milliseconds(1500)), ("0.5", .milliseconds(500)), (".5m", .seconds(30)),
        ("1.5ms", .microseconds(1500)), (" 3s ", .seconds(3)),
    ])
    func parses(_ text: String, _ expected: Duration) {
        #expect(DurationParser.parse(text) == expected)
    }

    @Test(arguments: ["", "s", "-1s", "+1s", "1x", "1 s", "1.2.3s", "abc", "1e3", "ms", "1sec", "1S", "inf", "."])
    func rejects(_ text: String) {
        #expect(DurationParser.parse(text) == nil)
    }

    @Test func formats() {
        #expect(DurationParser.format(.milliseconds(250)) == "250ms")
        #expect(DurationParser.format(.seconds(30)) == "30s")
        #expect(DurationParser.format(.milliseconds(1500)) == "1.5s")
        #expect(DurationParser.format(.seconds(600)) == "10m")
        #expect(DurationParser.format(.seconds(7200)) == "2h")
        #expect(DurationParser.format(.seconds(86_400)) == "1d")
        #expect(DurationParser.format(.zero) == "0ms")
    }

    @Test func keySuggestions() {
        let keys = ConfigReader.routeKeys
        #expect(KeySuggestion.nearest(to: "push_tpye", in: keys) == "push_type")
        #expect(KeySuggestion.nearest(to: "qso", in: keys) == "qos")
        #expect(KeySuggestion.nearest(to: "topics", in: keys) == "topic")
        #expect(KeySuggestion.nearest(to: "mutable", in: keys) == "mutable_content")
        #expect(KeySuggestion.nearest(to: "mut", in: keys) == nil)
        #expect(KeySuggestion.nearest(to: "zzzzzz", in: keys) == nil)
        #expect(KeySuggestion.distance("abc", "acb") == 1)
        #expect(KeySuggestion.distance("", "abc") == 3)
        #expect(KeySuggestion.distance("kitten", "sitting") == 3)
    }
}
