/// Which topic filters make others redundant.
///
/// A broker delivers a message once for every subscription of the client that matches its
/// topic (mosquitto does; MQTT 5 allows it). Two routes on `zigbee2mqtt/#` and
/// `zigbee2mqtt/+/availability` would therefore bring each availability message twice, and
/// the bridge would decide it twice. A filter whose every topic another filter already
/// matches is not subscribed: the covering subscription brings its messages, once.
enum TopicFilterCover {
    /// `true` when every topic `inner` matches is matched by `outer` too (both valid MQTT
    /// filters without a `$share/` prefix). A filter covers itself.
    ///
    /// `#` and `+` in the first level never match a topic that starts with `$` (MQTT 4.7.2),
    /// so `#` does not cover `$SYS/#`.
    static func covers(_ outer: String, _ inner: String) -> Bool {
        let o = outer.split(separator: "/", omittingEmptySubsequences: false)
        let i = inner.split(separator: "/", omittingEmptySubsequences: false)
        for (n, level) in o.enumerated() {
            if level == "#" {
                // `a/#` matches `a` and everything under it; at the first level, no `$` topic.
                return !(n == 0 && i.first.map(startsWithDollar) == true)
            }
            guard n < i.count else { return false }
            let other = i[n]
            if other == "#" { return false }
            if level == "+" {
                if n == 0 && startsWithDollar(other) { return false }
                continue
            }
            // A literal level covers only the same literal.
            if other != level { return false }
        }
        return o.count == i.count
    }

    /// `true` when some topic matches both filters (neither needs to cover the other).
    static func overlap(_ a: String, _ b: String) -> Bool {
        let x = a.split(separator: "/", omittingEmptySubsequences: false)
        let y = b.split(separator: "/", omittingEmptySubsequences: false)
        var n = 0
        while n < x.count, n < y.count {
            let (p, q) = (x[n], y[n])
            if p == "#" || q == "#" {
                // A `$` first level is matched by the literal only.
                if n == 0 { return !(startsWithDollar(p) || startsWithDollar(q)) || p == q }
                return true
            }
            if p == "+" || q == "+" {
                if n == 0 && (startsWithDollar(p) || startsWithDollar(q)) { return false }
            } else if p != q {
                return false
            }
            n += 1
        }
        if x.count == y.count { return true }
        // One is longer: only `a/#` also matches its parent `a`.
        let longer = x.count > y.count ? x : y
        return longer.count == n + 1 && longer[n] == "#"
    }

    private static func startsWithDollar(_ level: Substring) -> Bool {
        level.utf8.first == UInt8(ascii: "$")
    }

    /// Pairs of `filters` (`$share/` prefixes allowed) that overlap without one covering the
    /// other, as pairs: the broker delivers a message on a topic both match twice.
    static func partialOverlaps(_ filters: [String]) -> [(String, String)] {
        var pairs: [(String, String)] = []
        for (n, a) in filters.enumerated() {
            for b in filters[(n + 1)...] {
                let (ga, fa) = split(a)
                let (gb, fb) = split(b)
                guard ga == gb, overlap(fa, fb), !covers(fa, fb), !covers(fb, fa) else { continue }
                pairs.append((a, b))
            }
        }
        return pairs
    }

    /// `$share/<group>/<filter>` as (group, filter); (nil, filter) for an unshared one.
    static func split(_ filter: String) -> (group: Substring?, filter: String) {
        guard filter.hasPrefix("$share/") else { return (nil, filter) }
        let rest = filter.dropFirst("$share/".count)
        guard let slash = rest.firstIndex(of: "/") else { return (nil, filter) }
        return (rest[..<slash], String(rest[rest.index(after: slash)...]))
    }
}
