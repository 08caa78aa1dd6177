/// The digests' windows, one per route and key: which alerts are delivered one by one,
/// which are held, and which windows have ended. Pure: the caller brings the time, stores
/// what changed (`Admission`) and sends the summaries `due(now:)` returns.
struct DigestWindows: Sendable {
    /// An open window and what it holds.
    struct Window: Sendable {
        var row: DigestWindowRow
        var held: [DigestHeldRow]
        /// The held alerts' ids (a replayed message is held once).
        var ids: Set<String>
        /// Tells this window's heap entry from an older window's of the same route and key.
        var generation: UInt64
    }

    /// What became of an alert offered to a window; the window row as it is now, to store.
    enum Admission: Sendable, Equatable {
        /// Delivered one by one (one of the window's first `max`).
        case deliver(DigestWindowRow)
        /// Held for the window's summary (new: to store with the window).
        case held(DigestWindowRow, DigestHeldRow)
        /// Already held (a replay of the same message): nothing to store.
        case heldAgain(DigestWindowRow)
    }

    /// Open windows by `windowKey(route:key:)`.
    private(set) var open: [String: Window] = [:]
    /// Windows that ended (their end passed, or a restart found them ended), oldest first.
    private var ended: [DigestSummary] = []
    /// Every open window's end (lazy deletion by generation).
    private var heap = DueHeap()
    private var generation: UInt64 = 0
    /// Per route: alerts held and summaries sent.
    private(set) var counts: [String: DigestCounts] = [:]

    /// The key of the window of `route` and `key`.
    static func windowKey(route: String, key: String) -> String { route + "\u{1F}" + key }

    /// Offers a non-critical alert of `route` whose digest key is `key`: the first `max` of a
    /// window are delivered, the rest held. A window opens at `now` and lasts `window`
    /// seconds; one whose end passed is ended first (its summary is then due).
    mutating func admit(route: String, key: String, window: Double, max: Int, alert: DigestHeldRow, now: Double,
                        newID: () -> String) -> Admission {
        let id = Self.windowKey(route: route, key: key)
        if let w = open[id], w.row.ends <= now {
            end(id)
        }
        if open[id] == nil {
            generation += 1
            let row = DigestWindowRow(route: route, key: key, summaryID: newID(), opened: now, ends: now + window, sent: 0)
            open[id] = Window(row: row, held: [], ids: [], generation: generation)
            heap.push(.init(due: row.ends, id: id, generation: generation))
        }
        if open[id]!.ids.contains(alert.id) { return .heldAgain(open[id]!.row) }
        if open[id]!.row.sent < max {
            open[id]!.row.sent += 1
            return .deliver(open[id]!.row)
        }
        open[id]!.held.append(alert)
        open[id]!.ids.insert(alert.id)
        counts[route, default: DigestCounts()].held += 1
        return .held(open[id]!.row, alert)
    }

    /// The windows ended by `now` (those holding nothing too: the caller forgets them),
    /// oldest end first; they are no longer open.
    mutating func due(now: Double) -> [DigestSummary] {
        while let top = heap.top, top.due <= now {
            _ = heap.pop()
            if open[top.id]?.generation == top.generation { end(top.id) }
        }
        if heap.count > 64, heap.count > 4 * open.count {
            let open = self.open
            heap.compact { open[$0.id]?.generation == $0.generation }
        }
        defer { ended = [] }
        return ended
    }

    /// The earliest time something falls due (`nil`: nothing open, nothing ended).
    var nextDue: Double? {
        if let first = ended.first { return first.window.ends }
        var heap = self.heap
        while let top = heap.top {
            if open[top.id]?.generation == top.generation { return top.due }
            _ = heap.pop()
        }
        return nil
    }

    /// Ends every open window now (a stopping bridge without a journal sends what they hold).
    mutating func closeAll() -> [DigestSummary] {
        for id in open.keys.sorted() { end(id) }
        heap = DueHeap()
        defer { ended = [] }
        return ended
    }

    /// Counts one summary of `route` sent.
    /// An alert of `route` held elsewhere (the shared memory's window): counted.
    mutating func held(route: String) {
        counts[route, default: DigestCounts()].held += 1
    }

    mutating func sent(route: String) {
        counts[route, default: DigestCounts()].sent += 1
    }

    /// Takes back a stored window (at start): open again when it ends after `now`, else
    /// ended at once (due at the next `due(now:)`). An older window of the same route and key
    /// that is still open is ended first.
    mutating func restore(_ row: DigestWindowRow, held: [DigestHeldRow], now: Double) {
        let id = Self.windowKey(route: row.route, key: row.key)
        guard row.ends > now else {
            ended.append(DigestSummary(window: row, held: held))
            return
        }
        if open[id] != nil { end(id) }
        generation += 1
        open[id] = Window(row: row, held: held, ids: Set(held.map(\.id)), generation: generation)
        heap.push(.init(due: row.ends, id: id, generation: generation))
    }

    /// Moves the open window `id` to the ended ones.
    private mutating func end(_ id: String) {
        guard let w = open.removeValue(forKey: id) else { return }
        ended.append(DigestSummary(window: w.row, held: w.held))
    }
}

/// One route's digest counters (stats `routes.<r>.digested` and `.digests`, `/metrics`).
package struct DigestCounts: Sendable, Equatable {
    /// Alerts held for a summary.
    var held = 0
    /// Summaries sent.
    var sent = 0

    init() {}
}
