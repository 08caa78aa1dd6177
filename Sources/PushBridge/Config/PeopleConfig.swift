/// One entry of `people:` (docs/people.md): who a set of outputs reaches, and where the
/// bridge learns whether that person is at home.
struct PersonConfig: Sendable {
    /// Unique; `presence.<name>` in expressions, the name an `audience` list and a Web Push
    /// subscription use.
    var name: String
    /// The outputs (names of `outputs:`) that reach this person. An output may belong to
    /// several people: it then gets an alert when any of them is in the audience.
    var outputs: [String]
    /// Where the person's presence comes from; `nil`: always unknown (counts as matching).
    var presence: PresenceConfig?
}

/// A person's `presence:`: the topic whose newest message decides, and how.
struct PresenceConfig: Sendable {
    /// An MQTT topic filter (a plain topic in the common case).
    var topic: String
    /// `true`: home; `false`: away; anything else (or not evaluable): unknown. Sees `payload`,
    /// `raw` and `topic`.
    var home: Expression
    /// A presence older than this is unknown; `nil`: never stale.
    var staleAfter: Duration?
}

/// A route's `audience:`: whose person-owned outputs get its alerts.
enum Audience: Sendable, Equatable {
    /// Every output (the default).
    case everyone
    /// The people whose presence is home (or unknown).
    case home
    /// The people whose presence is away (or unknown).
    case away
    /// The people named.
    case people([String])
}

/// A route's `when_nobody:`: what an alert does when its `home`/`away` audience is empty.
enum WhenNobody: String, Sendable, CaseIterable {
    /// Sent to every output, as without an audience.
    case everyone
    /// Kept (journaled) until someone arrives home, then delivered to the audience of then.
    case hold
    /// Sent to no person's output (outputs of nobody still get it).
    case none
}

extension BridgeConfig {
    /// The topic filters of the people's `presence:` (subscribed at QoS 1, retained messages included).
    var presenceTopicFilters: [String] {
        var out: [String] = []
        for person in people { if let t = person.presence?.topic, !out.contains(t) { out.append(t) } }
        return out
    }
}

extension RouteConfig {
    /// The route's audience for `pushbridge check` (`nil` for the default, everyone).
    var audienceText: String? {
        let who: String
        switch audience {
        case .everyone: return nil
        case .home: who = "home (the people at home; unknown counts)"
        case .away: who = "away (the people away; unknown counts)"
        case .people(let names): who = names.joined(separator: ", ")
        }
        let nobody = audience == .home || audience == .away ? " when_nobody=\(whenNobody.rawValue)" : ""
        return "audience: " + who + nobody
    }
}

extension BridgeConfig {
    /// The `people:` lines of `pushbridge check` (none without people).
    func describePeople() -> [String] {
        guard !people.isEmpty else { return [] }
        var out = ["people (\(people.count)):"]
        for p in people {
            var line = "  \(p.name): outputs=\(p.outputs.joined(separator: ","))"
            if let presence = p.presence {
                line += " presence from \(presence.topic) home when \"\(presence.home.source)\""
                if let stale = presence.staleAfter { line += " stale_after=\(stale.text)" }
            } else {
                line += " presence: unknown (no presence)"
            }
            out.append(line)
        }
        return out
    }
}
