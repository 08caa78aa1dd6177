/// The SUBSCRIBE and UNSUBSCRIBE packets that take the broker from what it has to what we want.
struct SubscriptionPlan: Equatable, Sendable {
    /// One SUBSCRIBE each: libmosquitto sends one QoS and one option set per packet, so
    /// subscriptions are grouped by (qos, noLocal, subscription identifier), in first-seen order.
    var subscribe: [[MQTTSubscription]]
    /// Filters to UNSUBSCRIBE, in one packet.
    var unsubscribe: [String]

    /// `true` when nothing needs to be sent.
    var isEmpty: Bool { subscribe.isEmpty && unsubscribe.isEmpty }

    /// The plan from `held` (what the broker has for us) to `desired`.
    ///
    /// A subscription already held with the same options is not sent again. A filter held
    /// with other options is subscribed again (that replaces it) and never unsubscribed.
    init(desired: [MQTTSubscription], held: Set<MQTTSubscription>) {
        let wanted = Self.unique(desired)
        let toSubscribe = wanted.filter { !held.contains($0) }
        let wantedFilters = Set(wanted.map(\.filter))
        var seen = Set<String>()
        unsubscribe = held.map(\.filter).filter { !wantedFilters.contains($0) && seen.insert($0).inserted }.sorted()
        subscribe = Self.grouped(toSubscribe)
    }

    /// `subs` without repeats, keeping the last entry for a filter (a later entry wins).
    static func unique(_ subs: [MQTTSubscription]) -> [MQTTSubscription] {
        var lastIndex: [String: Int] = [:]
        for (i, s) in subs.enumerated() { lastIndex[s.filter] = i }
        return subs.enumerated().filter { lastIndex[$0.element.filter] == $0.offset }.map(\.element)
    }

    /// `subs` split into runs of equal (qos, noLocal, identifier: one per SUBSCRIBE), groups in
    /// order of first appearance.
    static func grouped(_ subs: [MQTTSubscription]) -> [[MQTTSubscription]] {
        struct Key: Hashable { var qos: Int; var noLocal: Bool; var identifier: Int? }
        var order: [Key] = []
        var groups: [Key: [MQTTSubscription]] = [:]
        for s in subs {
            let key = Key(qos: s.qos, noLocal: s.noLocal, identifier: s.identifier)
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(s)
        }
        return order.map { groups[$0]! }
    }
}
