import Synchronization

/// One output's daily budget at work: counts what is handed to the output, holds the
/// non-critical alerts of the digesting part of the day (journaled), summarises them per
/// route every `summaryEvery`, and drops what comes once the day's budget is used up.
final class OutputBudget: Sendable {
    let output: String
    private let journal: Journal?
    private let stats: OutputStats
    private let logger: BridgeLogger
    private let state: Mutex<State>

    /// Seconds between two summaries of one route.
    static let summaryEvery = 900.0

    private struct State {
        var ledger: OutputBudgetLedger
        /// Per route, the held alerts (oldest first) and when its summary is due.
        var held: [String: (due: Double, items: [Held])] = [:]
    }

    /// A held alert: its journal row (`nil` without a journal), id, title and JSON.
    private struct Held {
        var id: Int64?
        var key: String
        var title: String
        var json: [UInt8]
    }

    /// A summary made by `release(now:targets:)`: the item, its targets and, with a journal,
    /// which of its deliveries were stored new.
    struct Released {
        var item: OutputItem
        var targets: [String]
        var stored: [Bool]?
    }

    /// The budget of `output`, with the day's count and the held alerts the journal kept:
    /// those held before a restart are summarised at the first `release` (no summary is
    /// owed longer than a restart).
    init(output: String, config: OutputBudgetConfig, journal: Journal?, stats: OutputStats, logger: BridgeLogger, now: Double) {
        self.output = output
        self.journal = journal
        self.stats = stats
        self.logger = logger
        let today = OutputBudgetLedger.localDay(now)
        var s = State(ledger: OutputBudgetLedger(config: config, day: today))
        if let journal {
            do {
                if let stored = try journal.outputBudget(output: output) {
                    s.ledger = OutputBudgetLedger(config: config, day: stored.day, used: stored.used)
                    s.ledger.roll(to: today)
                }
                for row in try journal.budgetHeld(output: output) {
                    s.held[row.route, default: (now, [])].items.append(
                        Held(id: row.id, key: row.key, title: OutputMessage(json: row.item)?.title ?? row.key, json: row.item))
                }
            } catch {
                logger.error("output '\(output)': cannot read its budget from the journal: \(error)")
            }
        }
        stats.budgetUsed.store(s.ledger.used, ordering: .relaxed)
        state = Mutex(s)
    }

    /// Whether `item` (`deliveries` deliveries) goes to the output now; when not, it was
    /// held for its route's summary or dropped, and counted.
    func admit(_ item: OutputItem, deliveries: Int, now: Double) -> Bool {
        let critical = OutputMessage(json: item.json)?.interruptionLevel == "critical"
        return state.withLock { s -> Bool in
            let verdict = s.ledger.admit(critical: critical, withdraw: item.kind == .withdraw, deliveries: deliveries,
                                         today: OutputBudgetLedger.localDay(now))
            switch verdict {
            case .send:
                save(&s)
            case .hold:
                var id: Int64?
                if let journal {
                    do {
                        guard let row = try journal.holdForBudget(output: output, route: item.route, key: item.key, item: item.json, heldAt: now)
                        else { return false }  // held already (a replayed message)
                        id = row
                    } catch {
                        logger.error("output '\(output)': cannot hold \(item.key) in the journal: \(error); holding it in memory")
                    }
                }
                stats.budgetDigested.add(1, ordering: .relaxed)
                let title = OutputMessage(json: item.json)?.title ?? item.key
                s.held[item.route, default: (now + Self.summaryEvery, [])].items.append(Held(id: id, key: item.key, title: title, json: item.json))
                logger.debug("output '\(output)': \(item.key) held for the next summary of '\(item.route)' (budget)")
            case .drop:
                stats.budgetDropped.add(1, ordering: .relaxed)
                logger.debug("output '\(output)': \(item.key) dropped: the day's budget of \(s.ledger.config.perDay) is used up")
            }
            return verdict == .send
        }
    }

    /// When the next summary is due; `nil` when nothing is held.
    var nextDue: Double? { state.withLock { $0.held.values.map(\.due).min() } }

    /// The summaries due by `now`, one per route, made and (with a journal) stored with the
    /// removal of the alerts they stand for in one transaction; `targets` gives an item's
    /// deliveries (`storeDeliveries: false`: the journal stores none, the caller hands them to
    /// another store). Their held alerts are dropped when the day's budget is used up.
    func release(now: Double, targets: (OutputItem) -> [String], storeDeliveries: Bool = true) -> [Released] {
        state.withLock { s -> [Released] in
            var out: [Released] = []
            for (route, entry) in s.held.sorted(by: { $0.key < $1.key }) where entry.due <= now {
                s.held[route] = nil
                guard let item = Self.summary(of: entry.items, route: route) else { continue }
                let list = targets(item)
                let allowed = s.ledger.admitSummary(deliveries: list.count, today: OutputBudgetLedger.localDay(now))
                var stored: [Bool]?
                if let journal {
                    do {
                        stored = try journal.releaseBudgetHeld(
                            output: output, ids: entry.items.compactMap(\.id),
                            summary: allowed ? (storeDeliveries ? list.map { (item.key, $0) } : [], item.json, now, s.ledger.day, s.ledger.used) : nil)
                    } catch {
                        logger.error("output '\(output)': cannot store the summary of '\(route)': \(error) (it is made again after a restart)")
                        continue
                    }
                }
                stats.budgetUsed.store(s.ledger.used, ordering: .relaxed)
                if allowed {
                    logger.info("output '\(output)': summary of \(entry.items.count) held alert(s) of '\(route)' (budget)")
                    out.append(Released(item: item, targets: list, stored: stored))
                    report(&s)
                } else {
                    stats.budgetDropped.add(entry.items.count, ordering: .relaxed)
                    logger.warning("output '\(output)': \(entry.items.count) held alert(s) of '\(route)' dropped: the day's budget of \(s.ledger.config.perDay) is used up")
                }
            }
            return out
        }
    }

    /// Counts and stores the day's deliveries, and reports the points reached.
    private func save(_ s: inout State) {
        stats.budgetUsed.store(s.ledger.used, ordering: .relaxed)
        if let journal {
            do { try journal.saveOutputBudget(output: output, day: s.ledger.day, used: s.ledger.used) } catch {
                logger.error("output '\(output)': cannot store its budget count: \(error)")
            }
        }
        report(&s)
    }

    private func report(_ s: inout State) {
        let perDay = s.ledger.config.perDay
        for mark in s.ledger.newMarks() {
            switch mark {
            case .digesting:
                logger.warning("output '\(output)': \(s.ledger.used) of its \(perDay) deliveries a day used: non-critical alerts are summarised per route every 15 minutes until midnight")
            case .full:
                logger.warning("output '\(output)': its \(perDay) deliveries a day are used: only critical alerts go until midnight, the others are dropped")
            }
        }
    }

    /// One item standing for `items` (oldest first): the newest one's display message with
    /// title "N more: <route>", the titles joined as body and the collapse id `<route>-digest`.
    private static func summary(of items: [Held], route: String) -> OutputItem? {
        guard let last = items.last, case .object(var o)? = try? JSONValue.parse(last.json) else { return nil }
        o["id"] = .string(NotificationRequest.newID())
        o["title"] = .string("\(items.count) more: \(route)")
        o["body"] = .string(items.map(\.title).joined(separator: ", "))
        o["collapse_id"] = .string(route + "-digest")
        for key in ["subtitle", "attachments", "condition", "user_info"] { o[key] = nil }
        var bytes: [UInt8] = []
        JSONValue.object(o).write(into: &bytes)
        // Its key names the newest alert it stands for: made again after a crash, it is the same delivery.
        return OutputItem(alertID: "\(route)-digest/\(last.key)", route: route, displayJSON: bytes)
    }
}
