/// Which outputs an alert goes to, as its route's `audience` and `when_nobody` decide
/// (docs/people.md, "Audience").
enum AudienceChoice: Sendable, Equatable {
    /// Every output (no audience, or `when_nobody: everyone` with nobody matching).
    case everyone
    /// Outputs of nobody, and the outputs (and Web Push subscriptions) of these people.
    case people(Set<String>)
    /// Kept until someone arrives home (`when_nobody: hold` with nobody matching).
    case hold

    /// The choice for a route's `audience` and `whenNobody`, with each person's presence now.
    static func choose(_ audience: Audience, whenNobody: WhenNobody, presence: [PresenceBoard.Entry]) -> AudienceChoice {
        let wanted: PresenceState
        switch audience {
        case .everyone: return .everyone
        case .people(let names): return .people(Set(names))
        case .home: wanted = .home
        case .away: wanted = .away
        }
        // Unknown counts as matching: when in doubt, tell them.
        let matching = Set(presence.filter { $0.state == wanted || $0.state == .unknown }.map(\.name))
        if !matching.isEmpty { return .people(matching) }
        switch whenNobody {
        case .everyone: return .everyone
        case .none: return .people([])
        case .hold: return .hold
        }
    }

    /// Whether an output owned by `owners` (empty: by nobody) gets the alert.
    func reaches(owners: Set<String>) -> Bool {
        switch self {
        case .everyone: return true
        case .people(let names): return owners.isEmpty || !owners.isDisjoint(with: names)
        case .hold: return owners.isEmpty
        }
    }

    /// Whether a Web Push subscription of `person` (`nil`: none) on an output owned by `owners` gets it.
    func reaches(subscriptionOf person: String?, owners: Set<String>) -> Bool {
        guard let person else { return reaches(owners: owners) }
        switch self {
        case .everyone: return true
        case .people(let names): return names.contains(person)
        case .hold: return false
        }
    }
}
