/// MQTT 3.1.1 / 5 topic filter and topic name rules.
///
/// A filter is non-empty, at most 65 535 UTF-8 bytes, contains no NUL; `+` stands alone in
/// its level; `#` stands alone in the last level. Matching follows the `$` rule: a filter
/// whose first level is `+` or `#` does not match a topic that starts with `$`.
enum TopicFilter {
    /// Longest topic or filter, in UTF-8 bytes.
    static let maxBytes = 65_535

    /// The problem with `filter`, or `nil` when it is a valid subscription filter.
    static func validate(_ filter: String) -> String? {
        if let problem = commonProblem(filter) { return problem }
        let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in levels.enumerated() {
            if level.contains("#") {
                if level != "#" { return "'#' must occupy a whole topic level" }
                if index != levels.count - 1 { return "'#' must be the last topic level" }
            }
            if level.contains("+") && level != "+" {
                return "'+' must occupy a whole topic level"
            }
        }
        return nil
    }

    /// The problem with `topic` as a topic to publish to, or `nil` when it is valid.
    static func validatePublishTopic(_ topic: String) -> String? {
        if let problem = commonProblem(topic) { return problem }
        if topic.contains("+") || topic.contains("#") {
            return "a topic to publish to must not contain the wildcards '+' or '#'"
        }
        return nil
    }

    /// `true` when `topic` (a topic name) matches `filter` (a valid filter).
    static func matches(filter: String, topic: String) -> Bool {
        // Over the bytes, level by level, without splitting: presence, attachment and lookup
        // topics are tried against every message that arrives.
        var filter = filter, topic = topic
        return filter.withUTF8 { f in topic.withUTF8 { t in matches(f, t) } }
    }

    /// `matches(filter:topic:)` over UTF-8 bytes. Byte for byte: MQTT matches without
    /// normalizing (MQTT 5 section 4.7.3), so a decomposed "é" is not the precomposed one,
    /// although Swift's `==` says it is.
    private static func matches(_ f: UnsafeBufferPointer<UInt8>, _ t: UnsafeBufferPointer<UInt8>) -> Bool {
        let slash = UInt8(ascii: "/"), plus = UInt8(ascii: "+"), hash = UInt8(ascii: "#")
        // A topic starting with "$" is not matched by a first level that is a wildcard.
        if t.first == UInt8(ascii: "$"), let c = f.first, c == plus || c == hash, f.count == 1 || f[1] == slash {
            return false
        }
        var i = 0  // the start of the filter's level
        var j = 0  // the start of the topic's level; past its end once the topic has no more
        while true {
            var fe = i
            while fe < f.count && f[fe] != slash { fe += 1 }
            let length = fe - i
            if length == 1 && f[i] == hash { return true }
            guard j <= t.count else { return false }
            var te = j
            while te < t.count && t[te] != slash { te += 1 }
            if !(length == 1 && f[i] == plus) {
                guard te - j == length else { return false }
                var k = 0
                while k < length {
                    if f[i + k] != t[j + k] { return false }
                    k += 1
                }
            }
            if fe == f.count { return te == t.count }
            i = fe + 1
            j = te + 1  // past the end when the topic had no more levels
        }
    }

    private static func commonProblem(_ text: String) -> String? {
        if text.isEmpty { return "a topic must not be empty" }
        if text.utf8.count > maxBytes { return "a topic must be at most \(maxBytes) bytes, got \(text.utf8.count)" }
        if text.utf8.contains(0) { return "a topic must not contain NUL" }
        return nil
    }
}
