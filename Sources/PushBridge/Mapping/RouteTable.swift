/// Finds the first route (in file order) whose topic filter matches a topic.
///
/// A trie over topic levels, so a lookup costs the topic's depth times the
/// number of wildcard branches, not the number of routes.
public struct RouteTable: Sendable {
    private final class Node: @unchecked Sendable {
        // Built once in `init`, read-only afterwards: safe to share.
        var literal: [Substring: Node] = [:]
        var plus: Node?
        /// Lowest route index whose filter ends with `#` here.
        var hash: Int?
        /// Lowest route index whose filter ends exactly here.
        var terminal: Int?
    }

    private let root = Node()
    /// The routes, in file order.
    public let routes: [RouteConfig]

    /// Builds the table; filters are assumed valid (the config loader checked them).
    public init(routes: [RouteConfig]) {
        self.routes = routes
        for (index, route) in routes.enumerated() {
            var node = root
            var levels = route.topic.split(separator: "/", omittingEmptySubsequences: false)[...]
            while let level = levels.popFirst() {
                if level == "#" {
                    node.hash = min(node.hash ?? index, index)
                    break
                }
                if level == "+" {
                    if node.plus == nil { node.plus = Node() }
                    node = node.plus!
                } else {
                    if node.literal[level] == nil { node.literal[level] = Node() }
                    node = node.literal[level]!
                }
                if levels.isEmpty { node.terminal = min(node.terminal ?? index, index) }
            }
        }
    }

    /// The first route matching `topic`, or `nil` (the message is `unrouted`).
    public func match(_ topic: String) -> RouteConfig? {
        matchIndex(topic).map { routes[$0] }
    }

    /// Index of the first route matching `topic`.
    public func matchIndex(_ topic: String) -> Int? {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        let dollar = topic.hasPrefix("$")
        var best: Int?
        func consider(_ i: Int?) {
            if let i, i < (best ?? Int.max) { best = i }
        }
        func walk(_ node: Node, _ depth: Int) {
            // `#` also matches the parent level ("a/#" matches "a").
            if !(dollar && depth == 0) { consider(node.hash) }
            if depth == levels.count {
                consider(node.terminal)
                return
            }
            if let next = node.literal[levels[depth]] { walk(next, depth + 1) }
            if let plus = node.plus, !(dollar && depth == 0) { walk(plus, depth + 1) }
        }
        walk(root, 0)
        return best
    }
}
