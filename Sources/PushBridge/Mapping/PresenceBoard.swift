import Synchronization

/// Whether a person is at home, as the board tells it at one moment.
enum PresenceState: String, Sendable, CaseIterable {
    case home, away, unknown
}

/// Each person's presence (docs/people.md): the newest message of the person's `presence.topic`
/// decides through its `home` expression; no message yet, one older than `stale_after`, or one
/// the expression cannot evaluate leaves it unknown.
///
/// Made once per bridge and kept across reloads; written on the intake connection's thread
/// (and at start, from the journal), read by the mapper for `presence.*` and `people_home`,
/// by the outputs for the audience and by monitoring.
package final class PresenceBoard: Sendable {
    /// One person as the board knows them.
    struct Person: Sendable {
        let name: String
        let topic: String?
        let home: Expression?
        /// Seconds; `nil`: never stale.
        let staleAfter: Double?
    }

    /// What the newest message said (`home` `nil`: unknown), since when that is so, and when
    /// the newest message came.
    struct Reading: Sendable, Equatable {
        var home: Bool?
        /// When `home` became what it is (a repeat of the same value keeps it).
        var since: Double
        /// When the newest message came (what `stale_after` counts from).
        var lastAt: Double
    }

    /// One person's presence at a moment.
    struct Entry: Sendable, Equatable {
        var name: String
        var state: PresenceState
        /// `nil` when unknown.
        var since: Double?
    }

    let people: [Person]
    private let readings: Mutex<[Reading?]>
    /// `variables(at:)`'s last answer, and until when it holds (the first moment someone
    /// becomes stale); a new reading forgets it. The mapper asks for every message.
    private let cached = Mutex<(presence: JSONValue, home: Int64, from: Double, until: Double)?>(nil)

    /// The board for `people` (every presence unknown).
    init(people: [PersonConfig]) {
        self.people = people.map {
            Person(name: $0.name, topic: $0.presence?.topic, home: $0.presence?.home,
                   staleAfter: $0.presence?.staleAfter.map { Double($0.nanoseconds) / 1e9 })
        }
        readings = Mutex(Array(repeating: nil, count: people.count))
    }

    /// The indexes of the people whose presence topic `topic` is.
    func people(of topic: String) -> [Int] {
        people.indices.filter { i in people[i].topic.map { TopicFilter.matches(filter: $0, topic: topic) } ?? false }
    }

    /// What person `index`'s `home` expression says of a message: `true` home, `false` away,
    /// `nil` unknown (not evaluable, not a boolean, or not JSON where the expression reads `payload`).
    func evaluate(_ index: Int, topic: String, payload: [UInt8]) -> Bool? {
        guard let home = people[index].home else { return nil }
        let raw = String(decoding: payload, as: UTF8.self)
        let parsed = try? JSONValue.parse(payload)
        if parsed == nil, home.variables.contains(.payload) { return nil }
        let context = MessageContext(topic: topic, payload: parsed ?? .string(raw), raw: raw, route: "presence")
        if case .bool(let b)? = home.evaluateStrictly(in: context) { return b }
        return nil
    }

    /// Records what a message said of person `index` at `time`; returns the state just before
    /// and just after.
    @discardableResult
    func record(_ index: Int, home: Bool?, at time: Double) -> (before: PresenceState, after: Reading) {
        readings.withLock { r in
            let before = Self.state(r[index], person: people[index], at: time)
            var reading = r[index] ?? Reading(home: home, since: time, lastAt: time)
            // A repeat of the same value (once known, not stale) keeps its `since`.
            if reading.home != home || before.state == .unknown { reading.since = time }
            reading.home = home
            reading.lastAt = time
            r[index] = reading
            cached.withLock { $0 = nil }
            return (before.state, reading)
        }
    }

    /// Puts back a reading kept in the journal (the person named `name`; unknown names are ignored).
    func restore(name: String, reading: Reading) {
        guard let i = people.firstIndex(where: { $0.name == name }) else { return }
        readings.withLock { r in
            r[i] = reading
            cached.withLock { $0 = nil }
        }
    }

    /// Each person's presence at `now`, in config order.
    func entries(at now: Double) -> [Entry] {
        readings.withLock { r in
            people.indices.map { i in
                let s = Self.state(r[i], person: people[i], at: now)
                return Entry(name: people[i].name, state: s.state, since: s.since)
            }
        }
    }

    /// `presence` (name → `true`, `false` or `null`) and `people_home` at `now`.
    func variables(at now: Double) -> (presence: JSONValue, home: Int64) {
        readings.withLock { r in
            if let c = cached.withLock({ $0 }), c.from <= now, now <= c.until { return (c.presence, c.home) }
            var object = JSONObject()
            var home: Int64 = 0
            var until = Double.infinity
            for i in people.indices {
                let s = Self.state(r[i], person: people[i], at: now)
                switch s.state {
                case .home:
                    object[people[i].name] = .bool(true)
                    home += 1
                case .away: object[people[i].name] = .bool(false)
                case .unknown: object[people[i].name] = .null
                }
                if s.state != .unknown, let stale = people[i].staleAfter, let reading = r[i] {
                    until = min(until, reading.lastAt + stale)
                }
            }
            let presence = JSONValue.object(object)
            cached.withLock { $0 = (presence, home, now, until) }
            return (presence, home)
        }
    }

    /// The state a reading gives at `now`.
    private static func state(_ reading: Reading?, person: Person, at now: Double) -> (state: PresenceState, since: Double?) {
        guard let reading, let home = reading.home else { return (.unknown, nil) }
        if let stale = person.staleAfter, now - reading.lastAt > stale { return (.unknown, nil) }
        return (home ? .home : .away, reading.since)
    }
}
