import Testing
@testable import PushBridge

/// The byte-level matcher against the plain level-by-level rule of MQTT 5 section 4.7, for
/// every valid filter and every topic made of up to four levels from a small alphabet
/// (empty levels, "$" topics, levels that share a prefix), and known cases.
@Suite struct TopicFilterMatchTests {
    /// The rule, written the plain way: split both into levels and compare them in turn.
    static func reference(filter: String, topic: String) -> Bool {
        let f = filter.split(separator: "/", omittingEmptySubsequences: false).map { Array($0.utf8) }
        let t = topic.split(separator: "/", omittingEmptySubsequences: false).map { Array($0.utf8) }
        if topic.hasPrefix("$"), let first = f.first, first == Array("+".utf8) || first == Array("#".utf8) { return false }
        var i = 0
        while i < f.count {
            if f[i] == Array("#".utf8) { return true }
            guard i < t.count else { return false }
            if f[i] != Array("+".utf8) && f[i] != t[i] { return false }
            i += 1
        }
        return i == t.count
    }

    /// Every string of 1 to `depth` levels, each one of `levels`.
    static func combinations(_ levels: [String], depth: Int) -> [String] {
        var out: [[String]] = levels.map { [$0] }
        var all = out
        for _ in 1..<depth {
            out = out.flatMap { prefix in levels.map { prefix + [$0] } }
            all += out
        }
        return all.map { $0.joined(separator: "/") }
    }

    @Test func agreesWithTheLevelRuleEverywhere() {
        // Small alphabets, so that the debug build checks it in a second or two (the two forms
        // of "é" are in `knownCases`).
        let topics = Self.combinations(["a", "", "$SYS", "ab"], depth: 4).filter { !$0.isEmpty }
        let filters = Self.combinations(["a", "+", "#", "", "$SYS"], depth: 4)
            .filter { !$0.isEmpty && TopicFilter.validate($0) == nil }
        var checked = 0
        for filter in filters {
            for topic in topics {
                let expected = Self.reference(filter: filter, topic: topic)
                if TopicFilter.matches(filter: filter, topic: topic) != expected {
                    Issue.record("'\(filter)' against '\(topic)': expected \(expected)")
                    return
                }
                checked += 1
            }
        }
        #expect(checked > 100_000)
    }

    @Test(arguments: [
        ("sport/#", "sport", true), ("sport/#", "sport/", true), ("#", "$SYS/x", false), ("+/x", "$SYS/x", false),
        ("$SYS/#", "$SYS/x", true), ("a/+", "a", false), ("a/+", "a/", true), ("a/b", "a/b/", false),
        ("a/b/", "a/b", false), ("+", "", true), ("e\u{301}", "\u{e9}", false), ("\u{e9}/+", "\u{e9}/x", true), ("owntracks/+/+", "owntracks/alice/phone", true),
    ])
    func knownCases(_ filter: String, _ topic: String, _ expected: Bool) {
        #expect(TopicFilter.matches(filter: filter, topic: topic) == expected)
    }
}
