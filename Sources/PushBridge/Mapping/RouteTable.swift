/// Finds the first route (in file order) whose topic filter matches a topic, or the first
/// after a given one (`continue: true`).
///
/// A trie over topic levels, so a lookup costs the topic's depth times the
/// number of wildcard branches, not the number of routes.
package struct RouteTable: Sendable {
    /// A trie node while `init` builds the table.
    private final class Builder {
        var literal: [Substring: Builder] = [:]
        var plus: Builder?
        var hash: [Int] = []
        var terminal: [Int] = []
    }

    /// A node of the finished trie: immutable, so lookups need no exclusivity checks.
    private final class Node: Sendable {
        let literal: [Substring: Node]
        /// `literal` as a list when it has at most `smallCount` children: compared in turn
        /// (the same `==` the dictionary uses), so a lookup hashes nothing.
        let smallLiteral: [(level: Substring, node: Node)]?
        let plus: Node?
        /// The route indexes whose filter ends with `#` here, ascending.
        let hashes: [Int]
        /// The route indexes whose filter ends exactly here, ascending.
        let terminals: [Int]

        /// The lowest route index above `after` whose filter ends with `#` here.
        func hash(after: Int) -> Int? {
            guard let first = hashes.first else { return nil }
            return first > after ? first : hashes.first { $0 > after }
        }

        /// The lowest route index above `after` whose filter ends exactly here.
        func terminal(after: Int) -> Int? {
            guard let first = terminals.first else { return nil }
            return first > after ? first : terminals.first { $0 > after }
        }

        /// `b`'s node, its children taken from `done` (frozen before their parent).
        init(_ b: Builder, _ done: [ObjectIdentifier: Node]) {
            literal = b.literal.mapValues { done[ObjectIdentifier($0)]! }
            smallLiteral = literal.count <= Self.smallCount ? literal.map { (level: $0.key, node: $0.value) } : nil
            plus = b.plus.map { done[ObjectIdentifier($0)]! }
            hashes = b.hash
            terminals = b.terminal
        }

        /// Children up to which `smallLiteral` is kept.
        static let smallCount = 8

        /// The child for `level`, or `nil`.
        func child(_ level: Substring) -> Node? {
            if let small = smallLiteral {
                for entry in small where entry.level == level { return entry.node }
                return nil
            }
            return literal[level]
        }

        /// Freezes the trie under `root` without recursion (filters may be thousands of levels deep).
        static func freeze(_ root: Builder) -> Node {
            var preorder: [Builder] = []
            var stack = [root]
            while let b = stack.popLast() {
                preorder.append(b)
                stack.append(contentsOf: b.literal.values)
                if let plus = b.plus { stack.append(plus) }
            }
            var done: [ObjectIdentifier: Node] = [:]
            for b in preorder.reversed() { done[ObjectIdentifier(b)] = Node(b, done) }
            return done[ObjectIdentifier(root)]!
        }
    }

    private let root: Node
    /// The routes, in file order.
    package let routes: [RouteConfig]
    /// The same routes, each behind one shared reference for the per-message path.
    private let entries: [Entry]
    /// Route index by name.
    private let byName: [String: Int]
    /// `continue: true` per route (read per message: a flat array, no route copied).
    private let continues: [Bool]

    /// A route held by reference: handing it along costs one reference count.
    final class Entry: Sendable {
        let route: RouteConfig
        init(_ route: RouteConfig) { self.route = route }
    }

    /// Builds the table; filters are assumed valid (the config loader checked them).
    package init(routes: [RouteConfig]) {
        self.routes = routes
        self.entries = routes.map(Entry.init)
        self.continues = routes.map(\.continueMatching)
        self.byName = Dictionary(routes.enumerated().map { ($0.element.name, $0.offset) }, uniquingKeysWith: { first, _ in first })
        let root = Builder()
        for (index, route) in routes.enumerated() {
            var node = root
            var levels = route.topic.split(separator: "/", omittingEmptySubsequences: false)[...]
            while let level = levels.popFirst() {
                if level == "#" {
                    node.hash.append(index)
                    break
                }
                if level == "+" {
                    if node.plus == nil { node.plus = Builder() }
                    node = node.plus!
                } else {
                    if node.literal[level] == nil { node.literal[level] = Builder() }
                    node = node.literal[level]!
                }
                if levels.isEmpty { node.terminal.append(index) }
            }
        }
        self.root = Node.freeze(root)
    }

    /// The first route matching `topic`, or `nil` (the message is `unrouted`).
    package func match(_ topic: String) -> RouteConfig? {
        matchIndex(topic).map { routes[$0] }
    }

    /// The route at `index` as a shared reference.
    func entry(at index: Int) -> Entry { entries[index] }

    /// The route named `name` (names are unique), as a shared reference.
    func entry(named name: String) -> Entry? { byName[name].map { entries[$0] } }

    /// The route after `index` that decides a message on `topic` too: the next matching one
    /// when the route at `index` has `continue: true`, else `nil`.
    func continuation(after index: Int, topic: String) -> Int? {
        continues[index] ? matchIndex(topic, after: index) : nil
    }

    /// Index of the first route matching `topic`, or of the first after `after`.
    ///
    /// Walks the topic's levels in place (no list of levels is built).
    package func matchIndex(_ topic: String, after: Int = -1) -> Int? {
        let utf8 = topic.utf8
        let slash = UInt8(ascii: "/")
        let dollar = utf8.first == UInt8(ascii: "$")
        var best = Int.max
        /// `start` is where the next level begins, `nil` when every level was consumed.
        func walk(_ node: Node, _ start: String.Index?, _ first: Bool) {
            // `#` also matches the parent level ("a/#" matches "a").
            if !(dollar && first), let i = node.hash(after: after), i < best { best = i }
            guard let start else {
                if let i = node.terminal(after: after), i < best { best = i }
                return
            }
            let end = utf8[start...].firstIndex(of: slash) ?? utf8.endIndex
            let next = end == utf8.endIndex ? nil : utf8.index(after: end)
            if !node.literal.isEmpty, let child = node.child(topic[start..<end]) { walk(child, next, false) }
            if let plus = node.plus, !(dollar && first) { walk(plus, next, false) }
        }
        walk(root, utf8.startIndex, true)
        return best == Int.max ? nil : best
    }
}
