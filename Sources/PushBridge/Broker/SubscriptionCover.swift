/// The subscriptions of the intake connection without the redundant ones.
extension TopicFilterCover {
    /// `subscriptions` without those another one covers, in their order. Only subscriptions
    /// of the same kind cover each other: the same `$share/<group>/` (or none) and the same
    /// No Local. The covering one takes the higher QoS of the two.
    static func minimal(_ subscriptions: [MQTTSubscription]) -> [MQTTSubscription] {
        // Each filter is split once; `kept` and `parsed` go together.
        var kept: [MQTTSubscription] = []
        var parsed: [Parsed] = []
        for sub in subscriptions {
            let this = Parsed(sub.filter)
            func sameKind(_ n: Int) -> Bool { kept[n].noLocal == sub.noLocal && parsed[n].group == this.group }
            // Already covered by one kept: it keeps its place and takes the QoS.
            if let k = kept.indices.first(where: { sameKind($0) && covers(parsed[$0].levels, this.levels) }) {
                kept[k].qos = max(kept[k].qos, sub.qos)
                continue
            }
            // It covers kept ones: the first of them takes its place, the rest go.
            var qos = sub.qos
            var place: Int?
            var n = 0
            while n < kept.count {
                if sameKind(n), covers(this.levels, parsed[n].levels) {
                    qos = max(qos, kept[n].qos)
                    if place == nil {
                        place = n
                        n += 1
                    } else {
                        kept.remove(at: n)
                        parsed.remove(at: n)
                    }
                } else {
                    n += 1
                }
            }
            var replacement = sub
            replacement.qos = qos
            if let place {
                kept[place] = replacement
                parsed[place] = this
            } else {
                kept.append(replacement)
                parsed.append(this)
            }
        }
        return kept
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
        let parsed = subscriptions.map { TopicFilterCover.Parsed($0.filter) }
        var pairs: [(String, String)] = []
        for n in subscriptions.indices {
            for m in subscriptions.indices.dropFirst(n + 1)
            where subscriptions[n].filter != subscriptions[m].filter && parsed[n].overlaps(parsed[m]) {
                pairs.append((subscriptions[n].filter, subscriptions[m].filter))
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
