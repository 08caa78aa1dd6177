/// The people in the stats, `/metrics` and `GET /api/people` (docs/people.md): each person's
/// presence and since when, and per route the alerts held for an empty audience.
struct PeopleCounts: Sendable, Equatable {
    /// Each person's presence, in config order.
    var presence: [PresenceBoard.Entry]
    /// Per route with any: alerts held, and held alerts delivered since.
    var held: [String: HeldCounts]

    /// The counts of `desk` now.
    init(_ desk: PeopleDesk) {
        self.init(presence: desk.board.entries(at: desk.wall()), held: desk.routeCounts())
    }

    /// Counts from their parts.
    init(presence: [PresenceBoard.Entry], held: [String: HeldCounts]) {
        self.presence = presence
        self.held = held
    }

    /// `{"alice":{"presence":"home","since":"…Z"},…}`: `since` is null when unknown.
    static func write(_ presence: [PresenceBoard.Entry], into w: inout JSONWriter) {
        w.beginObject()
        for e in presence {
            w.key(e.name); w.beginObject()
            w.key("presence"); w.string(e.state.rawValue)
            w.key("since")
            if let since = e.since { w.string(Timestamp.iso8601(since)) } else { w.null() }
            w.endObject()
        }
        w.endObject()
    }

    /// The body of `GET /api/people`.
    static func json(_ presence: [PresenceBoard.Entry]) -> [UInt8] {
        var w = JSONWriter()
        write(presence, into: &w)
        return w.bytes
    }
}

extension StatsSnapshot {
    /// `"people":{…}` (see `PeopleCounts.write`); nothing without people.
    func writePeople(into w: inout JSONWriter) {
        guard let people else { return }
        w.key("people")
        PeopleCounts.write(people.presence, into: &w)
    }
}

extension PrometheusWriter {
    /// `pushbridge_person_presence{person,presence}` (1 for the current state, 0 for the
    /// others), `pushbridge_person_presence_since_seconds{person}` (UNIX seconds; absent while
    /// unknown) and `pushbridge_held_alerts_total{route,result}`.
    mutating func people(_ people: PeopleCounts?) {
        guard let people else { return }
        family("pushbridge_person_presence", .gauge,
               "Each person's presence: 1 for the current state (home, away or unknown), 0 for the others.")
        for e in people.presence {
            for state in PresenceState.allCases {
                sample("pushbridge_person_presence", [("person", e.name), ("presence", state.rawValue)], e.state == state ? 1 : 0)
            }
        }
        family("pushbridge_person_presence_since_seconds", .gauge,
               "When each person's current presence (home or away) began, UNIX seconds; absent while unknown.")
        for e in people.presence {
            if let since = e.since { sample("pushbridge_person_presence_since_seconds", [("person", e.name)], since) }
        }
        family("pushbridge_held_alerts_total", .counter,
               "Alerts of a route with when_nobody: hold, by result: held (nobody in the audience), delivered (held, then delivered when someone arrived).")
        for route in people.held.keys.sorted() {
            let c = people.held[route]!
            sample("pushbridge_held_alerts_total", [("route", route), ("result", "held")], c.held)
            sample("pushbridge_held_alerts_total", [("route", route), ("result", "delivered")], c.released)
        }
    }
}
