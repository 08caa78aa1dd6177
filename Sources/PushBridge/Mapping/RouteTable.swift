/// Finds the first route (in file order) whose topic filter matches a topic, or the first
/// after a given one (`continue: true`).
///
/// A trie over topic levels, so a lookup costs the topic's depth times the
/// number of wildcard branches, not the number of routes.
struct RouteTable: Sendable {
    /// A trie node while `init` builds the table.
    private final class Builder {
        /// Children by their level's bytes (MQTT compares levels byte for byte).
        var literal: [[UInt8]: Builder] = [:]
        var plus: Builder?
        var hash: [Int] = []
        var terminal: [Int] = []
    }

    /// A node of the finished trie: immutable, so lookups need no exclusivity checks.
    private final class Node: Sendable {
        /// The literal children with their level's bytes.
        let literal: [(level: [UInt8], node: Node)]
        /// Positions in `literal` by the FNV-1a hash of the level, when there are more than
        /// `smallCount` children; up to that many they are compared in turn (hashing nothing).
        let hashed: [UInt32: [Int]]?
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
            let literal = b.literal.map { (level: $0.key, node: done[ObjectIdentifier($0.value)]!) }
            self.literal = literal
            hashed = literal.count <= Self.smallCount ? nil
                : Dictionary(grouping: literal.indices) { Partition.fnv1a32(literal[$0].level) }
            plus = b.plus.map { done[ObjectIdentifier($0)]! }
            hashes = b.hash
            terminals = b.terminal
        }

        /// Children up to which `literal` is searched in turn.
        static let smallCount = 8

        /// The child for the level whose bytes are `level`, or `nil`.
        func child(_ level: UnsafeBufferPointer<UInt8>) -> Node? {
            func same(_ entry: [UInt8]) -> Bool {
                entry.count == level.count && entry.withUnsafeBufferPointer { mine in
                    for i in 0..<level.count where mine[i] != level[i] { return false }
                    return true
                }
            }
            guard let hashed else {
                for entry in literal where same(entry.level) { return entry.node }
                return nil
            }
            for i in hashed[Partition.fnv1a32(level)] ?? [] where same(literal[i].level) { return literal[i].node }
            return nil
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
    init(routes: [RouteConfig]) {
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
                    let bytes = Array(level.utf8)
                    if node.literal[bytes] == nil { node.literal[bytes] = Builder() }
                    node = node.literal[bytes]!
                }
                if levels.isEmpty { node.terminal.append(index) }
            }
        }
        self.root = Node.freeze(root)
    }

    /// The first route matching `topic`, or `nil` (the message is `unrouted`).
    func match(_ topic: String) -> RouteConfig? {
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
    func matchIndex(_ topic: String, after: Int = -1) -> Int? {
        // In place for native and small strings (no copy of the bytes).
        if let found = topic.utf8.withContiguousStorageIfAvailable({ matchIndex(bytes: $0, after: after) }) {
            return found
        }
        return Array(topic.utf8).withUnsafeBufferPointer { matchIndex(bytes: $0, after: after) }
    }

    /// `matchIndex(_:after:)` over the topic's UTF-8 bytes.
    private func matchIndex(bytes: UnsafeBufferPointer<UInt8>, after: Int) -> Int? {
        let slash = UInt8(ascii: "/")
        let dollar = bytes.first == UInt8(ascii: "$")
        let count = bytes.count
        var best = Int.max
        /// `start` is where the next level begins, `nil` when every level was consumed.
        func walk(_ node: Node, _ start: Int?, _ first: Bool) {
            // `#` also matches the parent level ("a/#" matches "a").
            if !(dollar && first), let i = node.hash(after: after), i < best { best = i }
            guard let start else {
                if let i = node.terminal(after: after), i < best { best = i }
                return
            }
            var end = start
            while end < count && bytes[end] != slash { end += 1 }
            let next = end == count ? nil : end + 1
            if !node.literal.isEmpty, let child = node.child(UnsafeBufferPointer(rebasing: bytes[start..<end])) {
                walk(child, next, false)
            }
            if let plus = node.plus, !(dollar && first) { walk(plus, next, false) }
        }
        walk(root, 0, true)
        return best == Int.max ? nil : best
    }
}
