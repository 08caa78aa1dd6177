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
        let f = filter.split(separator: "/", omittingEmptySubsequences: false)
        let t = topic.split(separator: "/", omittingEmptySubsequences: false)
        if topic.hasPrefix("$"), let first = f.first, first == "+" || first == "#" {
            return false
        }
        var i = 0
        while i < f.count {
            if f[i] == "#" { return true }
            guard i < t.count else { return false }
            // Byte for byte: MQTT matches without normalizing (MQTT 5 section 4.7.3), so a
            // decomposed "é" is not the precomposed one, although Swift's `==` says it is.
            if f[i] != "+" && !f[i].utf8.elementsEqual(t[i].utf8) { return false }
            i += 1
        }
        return i == t.count
    }

    private static func commonProblem(_ text: String) -> String? {
        if text.isEmpty { return "a topic must not be empty" }
        if text.utf8.count > maxBytes { return "a topic must be at most \(maxBytes) bytes, got \(text.utf8.count)" }
        if text.utf8.contains(0) { return "a topic must not contain NUL" }
        return nil
    }
}
