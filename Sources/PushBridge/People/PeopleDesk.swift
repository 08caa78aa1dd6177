import Synchronization

/// The people of a running bridge (docs/people.md): their presence (kept in the journal and
/// restored at start), which outputs are whose, each route's audience, and the alerts held
/// for an empty audience until someone arrives.
///
/// Made once per bridge; a reload gives it the new routes' audiences (`routesChanged`).
final class PeopleDesk: Sendable {
    /// Each person's presence (the mapper reads it too).
    let board: PresenceBoard
    /// By output name: the people who own it (an output absent here belongs to nobody).
    let owners: [String: Set<String>]
    private let policies: Mutex<[String: (audience: Audience, whenNobody: WhenNobody)]>
    private let journal: Journal?
    private let logger: BridgeLogger
    /// The clock presence is read and stamped on.
    let wall: @Sendable () -> Double
    /// Held alerts without a journal (negative ids: never a journal row's).
    private let memory = Mutex<(rows: [HeldAlertRow], next: Int64)>(([], -1))
    /// How many releases ran; its lock runs one release at a time (an arrival on the intake
    /// thread, a hold that found someone arrived meanwhile on the delivery thread).
    private let releases = Mutex(0)
    /// Per route: alerts held, and held alerts delivered later.
    private let counts = Mutex<[String: HeldCounts]>([:])

    /// The desk for `config.people` (`nil` without any), presence restored from `journal`.
    init?(config: BridgeConfig, journal: Journal?, logger: BridgeLogger, wall: @escaping @Sendable () -> Double) {
        guard !config.people.isEmpty else { return nil }
        board = PresenceBoard(people: config.people)
        var owners: [String: Set<String>] = [:]
        for person in config.people { for output in person.outputs { owners[output, default: []].insert(person.name) } }
        self.owners = owners
        policies = Mutex(Self.policies(of: config.routes))
        self.journal = journal
        self.logger = logger
        self.wall = wall
        if let journal {
            do {
                for row in try journal.presenceRows() {
                    board.restore(name: row.person, reading: PresenceBoard.Reading(home: row.home, since: row.since, lastAt: row.lastAt))
                }
            } catch { logger.error("people: cannot read the kept presence: \(error); every presence starts unknown") }
        }
    }

    private static func policies(of routes: [RouteConfig]) -> [String: (audience: Audience, whenNobody: WhenNobody)] {
        var out: [String: (audience: Audience, whenNobody: WhenNobody)] = [:]
        for route in routes where route.audience != .everyone { out[route.name] = (route.audience, route.whenNobody) }
        return out
    }

    /// A reload: the routes' audiences from now on.
    func routesChanged(_ routes: [RouteConfig]) {
        let new = Self.policies(of: routes)
        policies.withLock { $0 = new }
    }

    /// Takes `message` when its topic is a person's presence topic: evaluates it, records the
    /// presence (journaled after `release` ran, so a crash before the held alerts are handed
    /// on sees the arrival again). `release` runs when someone's presence became home or away.
    /// `true` when the message was a presence message.
    func receive(_ message: InboundMessage, release: () -> Void) -> Bool {
        let indexes = board.people(of: message.topic)
        guard !indexes.isEmpty else { return false }
        let now = wall()
        var changed = false
        var rows: [PresenceRow] = []
        for i in indexes {
            let home = board.evaluate(i, topic: message.topic, payload: message.payload)
            let name = board.people[i].name
            if home == nil, logger.enabled(.debug) {
                logger.debug("\(message.topic): presence of '\(name)' unknown (the message is not what 'home' reads)")
            }
            let (before, after) = board.record(i, home: home, at: now)
            let state: PresenceState = home.map { $0 ? .home : .away } ?? .unknown
            if state != before {
                logger.info("presence: '\(name)' is \(state.rawValue) (was \(before.rawValue))")
                if state != .unknown { changed = true }
            }
            rows.append(PresenceRow(person: name, home: after.home, since: after.since, lastAt: after.lastAt))
        }
        if changed { release() }
        if let journal {
            do { for row in rows { try journal.storePresence(row) } } catch {
                logger.error("people: cannot keep the presence in the journal: \(error)")
            }
        }
        return true
    }

    /// What an alert of `route` does now.
    func choice(for route: String) -> AudienceChoice {
        guard let policy = policies.withLock({ $0[route] }) else { return .everyone }
        return AudienceChoice.choose(policy.audience, whenNobody: policy.whenNobody, presence: board.entries(at: wall()))
    }

    /// Keeps an alert of `route` until its audience is someone (journaled when there is a journal).
    func hold(route: String, key: String, item: [UInt8], files: [String]) {
        let now = wall()
        var added = true
        if let journal {
            do { added = try journal.holdAlert(route: route, key: key, item: item, files: files, created: now) } catch {
                logger.error("people: cannot keep the held alert \(key) in the journal: \(error); kept in memory")
                holdInMemory(route: route, key: key, item: item, files: files, created: now)
            }
        } else {
            holdInMemory(route: route, key: key, item: item, files: files, created: now)
        }
        if added {
            counts.withLock { $0[route, default: HeldCounts()].held += 1 }
            logger.debug("route '\(route)': nobody in the audience; alert \(key) held")
        }
    }

    private func holdInMemory(route: String, key: String, item: [UInt8], files: [String], created: Double) {
        memory.withLock { m in
            guard !m.rows.contains(where: { $0.route == route && $0.key == key }) else { return }
            m.rows.append(HeldAlertRow(id: m.next, route: route, key: key, item: item, files: files, created: created))
            m.next -= 1
        }
    }

    /// The held alerts whose route's audience is someone now, per route (oldest first), with
    /// that audience.
    func releasable() -> [HeldRelease] {
        var rows: [HeldAlertRow]
        if let journal {
            do { rows = try journal.heldAlerts() } catch {
                logger.error("people: cannot read the held alerts: \(error)")
                rows = []
            }
        } else {
            rows = []
        }
        rows += memory.withLock { $0.rows }
        var order: [String] = []
        var byRoute: [String: [HeldAlertRow]] = [:]
        for row in rows {
            if byRoute[row.route] == nil { order.append(row.route) }
            byRoute[row.route, default: []].append(row)
        }
        return order.compactMap { route in
            let policy = policies.withLock { $0[route] }
            // A route that lost its audience (reload) delivers to everyone.
            let audience = policy.map { AudienceChoice.choose($0.audience, whenNobody: .hold, presence: board.entries(at: wall())) } ?? .everyone
            if audience == .hold { return nil }
            return HeldRelease(route: route, alerts: byRoute[route] ?? [], audience: audience)
        }
    }

    /// Runs `body` (a release of held alerts) while no other release runs.
    func serialized(_ body: () -> Void) {
        releases.withLock { count in
            count += 1
            body()
        }
    }

    /// `release`'s alerts were handed to the outputs (forgets those kept in memory).
    func released(_ release: HeldRelease) {
        let ids = Set(release.alerts.map(\.id))
        memory.withLock { m in m.rows.removeAll { $0.route == release.route && ids.contains($0.id) } }
        counts.withLock { $0[release.route, default: HeldCounts()].released += release.alerts.count }
    }

    /// Per route with any: alerts held, and held alerts delivered since.
    func routeCounts() -> [String: HeldCounts] { counts.withLock { $0 } }
}

/// One route's held alerts: how many were held, and how many of them were delivered later.
struct HeldCounts: Sendable, Equatable {
    var held = 0
    var released = 0
}

/// Held alerts of one route to deliver now, to `audience`.
struct HeldRelease: Sendable {
    let route: String
    /// Oldest first.
    let alerts: [HeldAlertRow]
    let audience: AudienceChoice
}
