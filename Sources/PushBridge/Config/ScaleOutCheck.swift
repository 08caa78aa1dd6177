/// The scale-out checks (docs/operations.md, "Scaling out"), run on the root mapping after the sections:
///
/// - reads `partition:`;
/// - `partition:` together with `share:` on any route is an error, at the partition key;
/// - a route with `share:` that a `dedupe`, `rate_limit` or `changed` filter applies to gets
///   a warning at its `share` key (unless `state.redis` shares the memory): with a round-robin
///   broker those filters keep their memory per replica and the per-topic order is lost.
///
/// It reads the YAML nodes (not the typed config) so that it sees every route and filter as
/// written, also when another one has an error; it reports nothing the sections report.
struct ScaleOutCheck {
    let reader: ConfigReader

    /// Filter actions whose memory is per process (each replica has its own), by their YAML key.
    static let statefulActions = ["dedupe", "rate_limit", "changed"]

    /// A route with a non-null `share:`.
    struct SharedRoute {
        var name: String
        var group: String
        var shareMark: YAMLMark
    }

    /// A stateful filter as written: its name (or default name), action, line and `routes:`.
    struct StatefulFilter {
        var name: String
        var action: String
        var mark: YAMLMark
        /// `nil`: every route.
        var routes: [String]?
    }

    func apply(_ f: ConfigFields, to config: inout BridgeConfig) {
        if let n = f["partition"] { config.partition = reader.readPartition(n) }
        let shared = sharedRoutes(f["routes"])
        guard !shared.isEmpty else { return }
        if f["partition"] != nil {
            let list = shared.map { "route '\($0.name)' at line \($0.shareMark.line + 1)" }
            reader.error("'partition' and 'share' cannot be combined (share: on \(Self.and(list))): "
                         + "with partition every replica subscribes without sharing and keeps only its own topics; "
                         + "remove 'share' from the routes, or remove 'partition'",
                         at: f.keyMarks["partition"] ?? f.mark)
            return
        }
        // With state.redis the filters' memory is shared by the replicas: nothing to warn about.
        guard config.state?.redis == nil else { return }
        let filters = statefulFilters(f["extension"])
        for route in shared {
            let applying = filters.filter { $0.routes?.contains(route.name) ?? true }
            guard !applying.isEmpty else { continue }
            let names = applying.map { "'\($0.name)' (\($0.action), line \($0.mark.line + 1))" }
            let subject = applying.count == 1 ? "filter \(names[0]) keeps its memory"
                : "filters \(Self.and(names)) keep their memory"
            reader.warn("route '\(route.name)' subscribes with 'share: \(route.group)' and \(subject) per replica: "
                        + "a round-robin broker (mosquitto) spreads one topic's messages over the group, so each replica "
                        + "sees only part of them and their order on the display topic is not kept; "
                        + "keep the memory in Redis ('state.redis'), use 'partition:' instead, or EMQX's hash_topic shared-subscription strategy",
                        at: route.shareMark)
        }
    }

    /// The routes written with a non-null `share:` scalar.
    private func sharedRoutes(_ node: YAMLNode?) -> [SharedRoute] {
        guard case .sequence(let items, _)? = node else { return [] }
        var out: [SharedRoute] = []
        for item in items {
            guard case .mapping(let pairs, _) = item,
                  let share = Self.pair(pairs, "share"), !share.value.isNull,
                  case .scalar(let group) = share.value else { continue }
            let name = Self.pair(pairs, "name").flatMap(Self.text) ?? Self.pair(pairs, "topic").flatMap(Self.text) ?? "?"
            out.append(SharedRoute(name: name, group: group.value, shareMark: share.keyMark))
        }
        return out
    }

    /// The `dedupe`, `rate_limit` and `changed` entries of `extension.filters`.
    private func statefulFilters(_ node: YAMLNode?) -> [StatefulFilter] {
        guard case .mapping(let section, _)? = node, let filters = Self.pair(section, "filters"),
              case .sequence(let items, _) = filters.value else { return [] }
        var out: [StatefulFilter] = []
        for (index, item) in items.enumerated() {
            guard case .mapping(let pairs, _) = item else { continue }
            guard let action = Self.statefulActions.first(where: { Self.pair(pairs, $0) != nil }),
                  let actionPair = Self.pair(pairs, action) else { continue }
            let name = Self.pair(pairs, "name").flatMap(Self.text) ?? "\(action)#\(index + 1)"
            var routes: [String]?
            if let r = Self.pair(pairs, "routes"), case .sequence(let names, _) = r.value {
                routes = names.compactMap { if case .scalar(let s) = $0 { s.value } else { nil } }
            }
            out.append(StatefulFilter(name: name, action: action, mark: actionPair.keyMark, routes: routes))
        }
        return out
    }

    /// `a`, `a and b`, `a, b and c`.
    static func and(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + items.last!
    }

    /// The first pair whose key is the plain name `key`: its key's mark and its value.
    private static func pair(_ pairs: [YAMLPair], _ key: String) -> (keyMark: YAMLMark, value: YAMLNode)? {
        for pair in pairs {
            if case .scalar(let k) = pair.key, k.value == key { return (k.mark, pair.value) }
        }
        return nil
    }

    /// A non-empty scalar's text.
    private static func text(_ found: (keyMark: YAMLMark, value: YAMLNode)) -> String? {
        if case .scalar(let s) = found.value, !s.isNull, !s.value.isEmpty { return s.value }
        return nil
    }
}
