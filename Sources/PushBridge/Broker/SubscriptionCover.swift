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
