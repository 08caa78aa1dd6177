/// The subscriptions of the intake connection without the redundant ones.
extension TopicFilterCover {
    /// `subscriptions` without those another one covers, in their order. Only subscriptions
    /// of the same kind cover each other: the same `$share/<group>/` (or none) and the same
    /// No Local. The covering one takes the higher QoS of the two.
    static func minimal(_ subscriptions: [MQTTSubscription]) -> [MQTTSubscription] {
        var kept: [MQTTSubscription] = []
        for sub in subscriptions {
            let filter = split(sub.filter).filter
            // Already covered by one kept: it keeps its place and takes the QoS.
            if let k = kept.firstIndex(where: { sameKind($0, sub) && covers(split($0.filter).filter, filter) }) {
                kept[k].qos = max(kept[k].qos, sub.qos)
                continue
            }
            // It covers kept ones: the first of them takes its place, the rest go.
            var qos = sub.qos
            var place: Int?
            var n = 0
            while n < kept.count {
                if sameKind(kept[n], sub), covers(filter, split(kept[n].filter).filter) {
                    qos = max(qos, kept[n].qos)
                    if place == nil {
                        place = n
                        n += 1
                    } else {
                        kept.remove(at: n)
                    }
                } else {
                    n += 1
                }
            }
            var replacement = sub
            replacement.qos = qos
            if let place { kept[place] = replacement } else { kept.append(replacement) }
        }
        return kept
    }

    private static func sameKind(_ a: MQTTSubscription, _ b: MQTTSubscription) -> Bool {
        a.noLocal == b.noLocal && split(a.filter).group == split(b.filter).group
    }

}

/// Which copy of a message to keep when subscriptions that overlap (`a/+/c` and `a/b/+`:
/// neither covers the other, so both are subscribed) each bring it: on MQTT 5 such
/// subscriptions carry Subscription Identifiers, and a copy is kept only when no subscription
/// with a lower identifier also matches its topic. A broker that sends one copy naming every
/// matching subscription has it kept too.
struct DuplicateCopies: Sendable, Equatable {
    /// For an identifier, the filters (without `$share/`) of lower identifiers that overlap it.
    let lower: [Int: [String]]

    /// `subscriptions` with identifiers 1, 2, … on those that overlap another one, and the
    /// rule for their copies; unchanged and `nil` when none do, or on MQTT 3.1.1 (no
    /// identifiers there: `check` warns).
    static func assign(_ subscriptions: [MQTTSubscription], v5: Bool) -> ([MQTTSubscription], DuplicateCopies?) {
        guard v5 else { return (subscriptions, nil) }
        // After `minimal` the pairs are the partial overlaps; subscriptions of other kinds
        // (No Local) may still cover one another, and bring two copies too.
        var pairs: [(String, String)] = []
        for (n, a) in subscriptions.enumerated() {
            for b in subscriptions[(n + 1)...] {
                let (x, y) = (TopicFilterCover.split(a.filter), TopicFilterCover.split(b.filter))
                if x.group == y.group, a.filter != b.filter, TopicFilterCover.overlap(x.filter, y.filter) {
                    pairs.append((a.filter, b.filter))
                }
            }
        }
        guard !pairs.isEmpty else { return (subscriptions, nil) }
        let involved = Set(pairs.flatMap { [$0.0, $0.1] })
        var out = subscriptions
        var ids: [String: Int] = [:]
        for i in out.indices where involved.contains(out[i].filter) {
            out[i].identifier = ids.count + 1
            ids[out[i].filter] = ids.count + 1
        }
        var lower: [Int: [String]] = [:]
        for (a, b) in pairs {
            let (ia, ib) = (ids[a]!, ids[b]!)
            let (low, high) = ia < ib ? (a, ib) : (b, ia)
            lower[high, default: []].append(TopicFilterCover.split(low).filter)
        }
        return (out, DuplicateCopies(lower: lower))
    }

    /// `false` for a copy that a subscription with a lower identifier brings as well.
    func isFirstCopy(topic: String, identifiers: [Int]) -> Bool {
        guard let id = identifiers.min(), let lower = lower[id] else { return true }
        return !lower.contains { TopicFilter.matches(filter: $0, topic: topic) }
    }
}
