/// One entry of a route's `lookup:` (docs/configuration.md, "Lookups"): a name and the topic
/// template whose topic's newest payload `lookup.<name>` reads for each message.
struct RouteLookup: Sendable {
    /// Letters, digits and `_`, not starting with a digit: `lookup.<name>` in expressions.
    var name: String
    /// Rendered for each message of the route: the topic whose kept value is read.
    var template: Template
    /// The filter subscribed for it (each level a hole touches read as `+`).
    var filter: String
}

extension BridgeConfig {
    /// The `lookup:` filters of every route, without repeats.
    var lookupTopicFilters: [String] {
        var out: [String] = []
        for route in routes {
            for lookup in route.lookups where !out.contains(lookup.filter) { out.append(lookup.filter) }
        }
        return out
    }
}

extension ConfigReader {
    /// Reads a route's `lookup:` mapping (names to topic templates); every problem is
    /// reported, positioned at its key or value.
    func readLookups(_ node: YAMLNode) -> [RouteLookup] {
        guard case .mapping(let pairs, _) = node else {
            error("'lookup' must be a mapping of names to topic templates, e.g. {discovery: \"homeassistant/binary_sensor/{{ levels[-4] }}/{{ levels[-2] }}/config\"}, got \(show(node))",
                  at: node.mark)
            return []
        }
        var out: [RouteLookup] = []
        for pair in pairs {
            guard case .scalar(let k) = pair.key else { continue }
            guard Self.isLookupName(k.value) else {
                error("invalid lookup name \"\(k.value)\": letters, digits and '_', not starting with a digit (it is read as lookup.\(k.value))",
                      at: k.mark)
                continue
            }
            guard let t = template(pair.value, key: "lookup.\(k.value)") else { continue }
            if t.variables.contains(.lookup) {
                error("lookup '\(k.value)': a lookup's topic template cannot read 'lookup'", at: pair.value.mark)
                continue
            }
            guard let filter = keptTopicFilter(t, key: "lookup.\(k.value)", at: pair.value) else { continue }
            out.append(RouteLookup(name: k.value, template: t, filter: filter))
        }
        return out
    }

    /// Letters, digits and `_`, not starting with a digit: a name a path `lookup.<name>` reads.
    static func isLookupName(_ s: String) -> Bool {
        guard let first = s.utf8.first, !(first >= 0x30 && first <= 0x39) else { return false }
        return s.utf8.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F
        }
    }
}
