/// Topic templates whose matching topics the bridge subscribes to from the start and whose
/// newest payloads it keeps: an attachment's `from_topic` and a route's `lookup:` entries.
extension ConfigReader {
    /// The filter subscribed for topic template `t` (the value of `key`, at `node`): its
    /// levels, each one a hole touches read as `+`. `nil` (the error reported) when that is no
    /// valid filter or starts with `$share/`.
    func keptTopicFilter(_ t: Template, key: String, at node: YAMLNode) -> String? {
        var levels: [String] = [""]
        var holed = [false]
        for piece in t.literalPieces {
            guard let text = piece else {
                holed[holed.count - 1] = true
                continue
            }
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            for (i, part) in parts.enumerated() {
                if i > 0 {
                    levels.append("")
                    holed.append(false)
                }
                levels[levels.count - 1] += part
            }
        }
        let filter = zip(levels, holed).map { $1 ? "+" : $0 }.joined(separator: "/")
        if let problem = TopicFilter.validate(filter) {
            error("invalid '\(key)' '\(t.source)': \(problem) (subscribed as \(filter))", at: node.mark)
            return nil
        }
        if filter.hasPrefix("$share/") {
            error("'\(key)' must not start with '$share/'", at: node.mark)
            return nil
        }
        return filter
    }
}

extension BridgeConfig {
    /// Every filter whose topics' newest payloads are kept (the attachments' `from_topic`, then
    /// the routes' `lookup:`), without repeats: subscribed from the start at QoS 0, never shared.
    var keptTopicFilters: [String] {
        var out = attachmentTopicFilters
        for filter in lookupTopicFilters where !out.contains(filter) { out.append(filter) }
        return out
    }
}
