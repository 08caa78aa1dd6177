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
        covers(levels(outer), levels(inner))
    }

    /// `covers` on filters already split into levels.
    static func covers(_ o: [Substring], _ i: [Substring]) -> Bool {
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
        overlap(levels(a), levels(b))
    }

    /// `overlap` on filters already split into levels.
    static func overlap(_ x: [Substring], _ y: [Substring]) -> Bool {
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

    /// A filter's levels, split once for many comparisons.
    static func levels(_ filter: String) -> [Substring] {
        filter.split(separator: "/", omittingEmptySubsequences: false)
    }

    /// A subscription filter split once: its `$share/` group and its levels.
    struct Parsed: Sendable {
        let group: Substring?
        let levels: [Substring]

        init(_ filter: String) {
            let (group, rest) = TopicFilterCover.split(filter)
            self.group = group
            self.levels = TopicFilterCover.levels(rest)
        }

        /// The same group (or both unshared), and some topic matches both.
        func overlaps(_ other: Parsed) -> Bool {
            group == other.group && TopicFilterCover.overlap(levels, other.levels)
        }

        /// They overlap without one covering the other: the broker delivers a message on a
        /// topic both match twice, and neither subscription can be left out.
        func partlyOverlaps(_ other: Parsed) -> Bool {
            overlaps(other) && !TopicFilterCover.covers(levels, other.levels) && !TopicFilterCover.covers(other.levels, levels)
        }
    }

    /// `$share/<group>/<filter>` as (group, filter); (nil, filter) for an unshared one.
    static func split(_ filter: String) -> (group: Substring?, filter: String) {
        guard filter.hasPrefix("$share/") else { return (nil, filter) }
        let rest = filter.dropFirst("$share/".count)
        guard let slash = rest.firstIndex(of: "/") else { return (nil, filter) }
        return (rest[..<slash], String(rest[rest.index(after: slash)...]))
    }
}
