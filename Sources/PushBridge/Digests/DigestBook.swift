import Dispatch
import Foundation
import Synchronization

/// The digests of a running bridge (routes with `digest:`): their windows behind one lock
/// and, with a journal, in the journal's database (every change is stored before the alert's
/// decision goes on, so a crash loses no held alert; a summary's rows are removed once it is
/// handed on). Time is always passed in, so tests drive it with a fake clock. It outlives
/// pipelines (a reload keeps the windows). Its one timer (DigestBookTimer.swift) is armed for
/// the earliest window end.
package final class DigestBook: Sendable {
    private let state = Mutex(DigestWindows())
    private let journal: Journal?
    private let logger: BridgeLogger
    /// The clock the timer compares window ends with (a fake one in tests).
    let wall: @Sendable () -> Double
    /// `nil` when not automatic. Its action runs on a serial queue: one firing at a time.
    let timer: WallDueTimer?
    /// The windows the replicas share (`state.redis`); `nil`: this process's (and its journal's).
    let shared: (any SharedDigests)?

    /// An empty book; with `journal` every change is stored (`restore` reads it back). With
    /// `automatic` its timer runs once `start(_:)` gives it its action; without, nothing is
    /// armed (a test advances `wall` and calls `fire(_:)`; `pushbridge try` sends no summary).
    init(journal: Journal? = nil, logger: BridgeLogger,
                 wall: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }, automatic: Bool = false,
                 shared: (any SharedDigests)? = nil) {
        self.shared = shared
        self.journal = journal
        self.logger = logger
        self.wall = wall
        timer = automatic ? WallDueTimer(queue: DispatchQueue(label: "pushbridge.digests")) : nil
    }

    /// Reads the stored windows back (at start): those whose end passed are due at once, the
    /// others run on until their end.
    func restore(now: Double = Date().timeIntervalSince1970) {
        guard let journal else { return }
        do {
            let rows = try journal.loadDigests()
            state.withLock { s in
                for (window, held) in rows { s.restore(window, held: held, now: now) }
            }
            let held = rows.reduce(0) { $0 + $1.held.count }
            if !rows.isEmpty { logger.info("digests: \(rows.count) window(s) holding \(held) alert(s) restored from the journal") }
        } catch {
            logger.error("digests: cannot read the journal's digests: \(error)")
        }
    }

    /// Offers a delivered, non-critical alert of `route` to the window of `key` (see
    /// `DigestWindows.admit`); the change is stored before this returns.
    func admit(route: String, key: String, config: DigestConfig, alert: DigestHeldRow, now: Double) -> DigestWindows.Admission {
        defer { rearm() }
        return state.withLock { s in
            let admission = s.admit(route: route, key: key, window: config.window.seconds, max: config.max, alert: alert,
                                    now: now, newID: NotificationRequest.newID)
            switch admission {
            case .deliver(let row): store(row, held: nil)
            case .held(let row, let alert): store(row, held: alert)
            case .heldAgain: break
            }
            return admission
        }
    }

    /// The summaries due at `now` (windows that ended holding alerts), oldest first; the
    /// windows that ended holding nothing are forgotten. Hand each on, then call `sent(_:)`.
    func due(now: Double) -> [DigestSummary] {
        let ended = state.withLock { $0.due(now: now) }
        for s in ended where s.held.isEmpty { forget(s.id) }
        return ended.filter { !$0.held.isEmpty }
    }

    /// Ends every open window now and returns the summaries of those holding alerts: a
    /// stopping bridge without a journal sends them early rather than losing them.
    func closeAll() -> [DigestSummary] {
        state.withLock { $0.closeAll() }.filter { !$0.held.isEmpty }
    }

    /// A summary was handed to the publisher and the outputs: counted, and its rows removed
    /// (with a shared memory: its window there).
    func sent(_ summary: DigestSummary) {
        state.withLock { $0.sent(route: summary.route) }
        if let shared {
            shared.sent(summary)
            return
        }
        forget(summary.id)
    }

    /// An alert of `route` held by the shared memory's window: counted here.
    func heldShared(route: String) {
        state.withLock { $0.held(route: route) }
    }

    /// The earliest time something falls due (`nil`: nothing open).
    var nextDue: Double? { state.withLock { $0.nextDue } }

    /// Per route: alerts held and summaries sent.
    package var counts: [String: DigestCounts] { state.withLock { $0.counts } }

    /// Alerts held now, over all windows.
    var heldNow: Int { state.withLock { $0.open.values.reduce(0) { $0 + $1.held.count } } }

    private func store(_ row: DigestWindowRow, held: DigestHeldRow?) {
        guard let journal else { return }
        do {
            try journal.saveDigest(row, held: held)
        } catch {
            logger.error("digests: cannot store the window of '\(row.key)' (route '\(row.route)'): \(error); it lives in memory only")
        }
    }

    private func forget(_ summaryID: String) {
        guard let journal else { return }
        do {
            try journal.removeDigest(summaryID: summaryID)
        } catch {
            logger.error("digests: cannot remove the summary \(summaryID) from the journal: \(error)")
        }
    }
}
