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
    /// The same routes, each behind one shared reference for the per-message path.
    private let entries: [Entry]

    /// A route held by reference: handing it along costs one reference count.
    final class Entry: Sendable {
        let route: RouteConfig
        init(_ route: RouteConfig) { self.route = route }
    }

    /// Builds the table; filters are assumed valid (the config loader checked them).
    public init(routes: [RouteConfig]) {
        self.routes = routes
        self.entries = routes.map(Entry.init)
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

    /// The first route matching `topic` as a shared reference (no copy of the route).
    func matchEntry(_ topic: String) -> Entry? {
        matchIndex(topic).map { entries[$0] }
    }

    /// Index of the first route matching `topic`.
    ///
    /// Walks the topic's levels in place (no list of levels is built).
    public func matchIndex(_ topic: String) -> Int? {
        let utf8 = topic.utf8
        let slash = UInt8(ascii: "/")
        let dollar = utf8.first == UInt8(ascii: "$")
        var best = Int.max
        /// `start` is where the next level begins, `nil` when every level was consumed.
        func walk(_ node: Node, _ start: String.Index?, _ first: Bool) {
            // `#` also matches the parent level ("a/#" matches "a").
            if !(dollar && first), let i = node.hash, i < best { best = i }
            guard let start else {
                if let i = node.terminal, i < best { best = i }
                return
            }
            let end = utf8[start...].firstIndex(of: slash) ?? utf8.endIndex
            let next = end == utf8.endIndex ? nil : utf8.index(after: end)
            if !node.literal.isEmpty, let child = node.literal[topic[start..<end]] { walk(child, next, false) }
            if let plus = node.plus, !(dollar && first) { walk(plus, next, false) }
        }
        walk(root, utf8.startIndex, true)
        return best == Int.max ? nil : best
    }
}
