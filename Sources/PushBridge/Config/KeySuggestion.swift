/// "Did you mean" help for unknown keys and names, by edit distance.
enum KeySuggestion {
    /// The closest candidate to `word`, when it is close enough to be a likely typo.
    static func nearest(to word: String, in candidates: [String]) -> String? {
        let lowered = word.lowercased()
        let length = lowered.count
        var best: (String, Int)?
        for candidate in candidates {
            let other = candidate.lowercased()
            // The distance is at least the length difference, and more than 3 is never
            // suggested: skip the O(n·m) table (a 2 MB word made it take seconds).
            guard abs(other.count - length) <= 3 else { continue }
            let d = distance(lowered, other)
            if best == nil || d < best!.1 { best = (candidate, d) }
        }
        if let (name, d) = best {
            let limit = max(1, min(3, max(length, name.count) / 3))
            if d <= limit { return name }
        }
        // A clipped key (`mutable` for `mutable_content`) is a likely mistake too.
        if word.count >= 4, let clipped = candidates.first(where: { $0.lowercased().hasPrefix(lowered) }) {
            return clipped
        }
        return nil
    }

    /// `; did you mean 'x'?` or `; known keys: a, b, c`.
    static func hint(for word: String, in candidates: [String], noun: String = "keys") -> String {
        if let near = nearest(to: word, in: candidates) {
            return "; did you mean '\(near)'?"
        }
        return "; known \(noun): \(candidates.joined(separator: ", "))"
    }

    /// Damerau–Levenshtein (optimal string alignment) distance: a swap counts as one edit.
    static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a), y = Array(b)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var d = Array(repeating: Array(repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { d[i][0] = i }
        for j in 0...y.count { d[0][j] = j }
        for i in 1...x.count {
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[x.count][y.count]
    }
}
