import Testing
@testable import PushBridge

@Suite struct TopicFilterTests {
    @Test(arguments: ["a", "a/b", "/", "a//b", "/a", "a/", "+", "#", "+/+", "a/+/c", "a/#", "+/#",
                      "$SYS/#", "sport/tennis/+", "ü/ß", " "])
    func validFilters(_ filter: String) {
        #expect(TopicFilter.validate(filter) == nil)
    }

    @Test(arguments: [
        ("", "a topic must not be empty"),
        ("a#", "'#' must occupy a whole topic level"),
        ("a/#/b", "'#' must be the last topic level"),
        ("#/a", "'#' must be the last topic level"),
        ("a/b#", "'#' must occupy a whole topic level"),
        ("a+", "'+' must occupy a whole topic level"),
        ("a/+b/c", "'+' must occupy a whole topic level"),
        ("++", "'+' must occupy a whole topic level"),
        ("a\u{0}b", "a topic must not contain NUL"),
    ])
    func invalidFilters(_ filter: String, _ problem: String) {
        #expect(TopicFilter.validate(filter) == problem)
    }

    @Test func lengthLimit() {
        #expect(TopicFilter.validate(String(repeating: "a", count: 65_535)) == nil)
        #expect(TopicFilter.validate(String(repeating: "a", count: 65_536)) == "a topic must be at most 65535 bytes, got 65536")
        #expect(TopicFilter.validatePublishTopic(String(repeating: "é", count: 32_768)) != nil)
    }

    @Test func publishTopics() {
        #expect(TopicFilter.validatePublishTopic("display/a") == nil)
        #expect(TopicFilter.validatePublishTopic("$SYS/x") == nil)
        #expect(TopicFilter.validatePublishTopic("a/+") != nil)
        #expect(TopicFilter.validatePublishTopic("a/#") != nil)
        #expect(TopicFilter.validatePublishTopic("a#b") != nil)
        #expect(TopicFilter.validatePublishTopic("") == "a topic must not be empty")
        #expect(TopicFilter.validatePublishTopic("a\u{0}") == "a topic must not contain NUL")
    }

    @Test(arguments: [
        ("a/b", "a/b", true), ("a/b", "a/c", false), ("a/b", "a/b/c", false), ("a/b/c", "a/b", false),
        ("a/+", "a/b", true), ("a/+", "a/", true), ("a/+", "a", false), ("a/+", "a/b/c", false),
        ("+/b", "a/b", true), ("+", "a", true), ("+", "", true), ("+", "a/b", false), ("+/+", "/", true),
        ("a/#", "a", true), ("a/#", "a/", true), ("a/#", "a/b/c", true), ("a/#", "ab", false), ("a/#", "b/a", false),
        ("#", "a", true), ("#", "a/b/c", true), ("#", "/", true),
        ("#", "$SYS/x", false), ("+/x", "$SYS/x", false), ("+", "$x", false), ("+/#", "$SYS", false),
        ("$SYS/#", "$SYS/x", true), ("$SYS/+", "$SYS/x", true), ("a/$x", "a/$x", true), ("a/+", "a/$x", true),
        ("/+", "/a", true), ("/+", "a", false), ("a//b", "a//b", true), ("a/+/b", "a//b", true),
        ("sport/tennis/player1/#", "sport/tennis/player1", true),
        ("sport/tennis/player1/#", "sport/tennis/player1/ranking/wimbledon", true),
        ("sport/+", "sport", false), ("sport/+", "sport/", true), ("A", "a", false),
    ])
    func matching(_ filter: String, _ topic: String, _ expected: Bool) {
        #expect(TopicFilter.matches(filter: filter, topic: topic) == expected)
    }
}
