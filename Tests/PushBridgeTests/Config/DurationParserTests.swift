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
        #expect((.milliseconds(250) as Duration).text == "250ms")
        #expect((.seconds(30) as Duration).text == "30s")
        #expect((.milliseconds(1500) as Duration).text == "1.5s")
        #expect((.seconds(600) as Duration).text == "10m")
        #expect((.seconds(7200) as Duration).text == "2h")
        #expect((.seconds(86_400) as Duration).text == "1d")
        #expect((.zero as Duration).text == "0ms")
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
