/// The cycles of a "points to" relation between named things (a route's `depends_on`, an
/// output's `fallback`), each once: returned as the path from the first of its names in
/// `order` back to that name (`a → b → a`: `["a", "b", "a"]`).
enum NameCycles {
    static func find(in order: [String], next: [String: String]) -> [[String]] {
        var cycles: [[String]] = []
        var reported: Set<String> = []
        for name in order where next[name] != nil && !reported.contains(name) {
            var path = [name]
            var n = next[name]
            while let current = n, !path.contains(current) {
                path.append(current)
                n = next[current]
            }
            guard let end = n, end == name else { continue }
            reported.formUnion(path)
            cycles.append(path + [end])
        }
        return cycles
    }
}
