import Foundation
import Synchronization

/// What enters the bridge: the bound on messages in flight, and — with
/// `journal:` — the record made on arrival, the broker's redeliveries recognised, and the
/// replay at start. It decides and records; publishing is `Publisher`'s.
final class Intake: Sendable {
    /// Places for messages in flight beyond `extension.concurrency` (the queue bound).
    static let queueBound = 1024
    /// The MQTT 5 Receive Maximum sent on CONNECT: at most this many QoS>0 messages the
    /// broker has sent us and we have not acknowledged (below `Journal.redeliveryTail`).
    static let receiveMaximum = 1024

    /// The journal (storage only), when `journal:` is set.
    let journal: Journal?
    let limiter: IntakeLimiter
    let counters = DeliveryCounters()
    private let logger: BridgeLogger
    /// How long `admit` may block the intake network thread for a place: the stage's whole
    /// budget (places also wait for PUBACKs, read by the output connection's thread).
    private let stallBudget: Duration
    private let maintenance: JournalMaintenance?

    /// What `admit` lets in: the id fixed on arrival and the journal row (if journaled).
    struct Admitted: Sendable {
        var id: String
        var seq: Int64?
    }

    /// Opens the journal `config` asks for (throwing when it cannot be opened).
    init(config: BridgeConfig, logger: BridgeLogger) throws {
        self.logger = logger
        limiter = IntakeLimiter(limit: config.extension.concurrency + Self.queueBound)
        stallBudget = config.extension.timeLimit + config.extension.expireGrace + .seconds(1)
        journal = try config.journal.map { try Journal(config: $0) }
        maintenance = journal.map { JournalMaintenance(journal: $0, logger: logger) }
    }

    /// Decides whether `message` enters the pipeline and makes it durable when it does
    /// (network thread, inside `on_message`). `nil`: skip it (a dropped QoS 0 message, or a
    /// redelivery of a journaled one).
    func admit(_ message: InboundMessage) -> Admitted? {
        if let journal, let entry = journal.redelivery(of: message) {
            counters.add(.redeliveriesSkipped)
            logger.debug("\(message.topic): redelivery of journaled message \(entry.id) skipped")
            return nil
        }
        if message.qos == 0 {
            guard limiter.tryEnter() else {
                let n = counters.add(.qos0Dropped)
                if n == 1 || n % 1000 == 0 {
                    logger.warning("\(limiter.limit) messages in flight: QoS 0 message on '\(message.topic)' dropped (\(n) so far)")
                }
                return nil
            }
            return Admitted(id: NotificationRequest.newID(), seq: nil)
        }
        if !limiter.enter(maxWait: stallBudget) {
            logger.warning("intake waited \(stallBudget) for a place; taking the message anyway")
        }
        // The mapper still prefers the source's `apns-id`, which a replay carries too.
        let id = NotificationRequest.newID()
        guard let journal else { return Admitted(id: id, seq: nil) }
        waitForJournalSpace(journal)
        do {
            return Admitted(id: id, seq: try journal.record(message, id: id))
        } catch {
            counters.add(.journalErrors)
            logger.error("journal: cannot record message on '\(message.topic)': \(error); processing it without the journal")
            return Admitted(id: id, seq: nil)
        }
    }

    /// With the journal full, waits (bounded) while messages in flight may still free rows
    /// without the network thread — each finished one gives its place back, which wakes
    /// this wait; then takes the message anyway, counted and logged.
    private func waitForJournalSpace(_ journal: Journal) {
        guard journal.isFull else { return }
        _ = limiter.wait(until: .now + stallBudget) { !journal.isFull || limiter.inFlight <= 1 }
        if journal.isFull {
            let n = counters.add(.journalOverflows)
            if n == 1 || n % 1000 == 0 {
                logger.warning("journal full (\(journal.openCount) open, max_messages \(journal.maxMessages)): the rest await acknowledgements; recording anyway (\(n) so far)")
            }
        }
    }

    /// Called on connect: a connection without a session gets no redeliveries.
    func connected(sessionPresent: Bool) {
        if !sessionPresent { journal?.closeRedeliveryWindow() }
    }

    /// The journal's open messages, to process again before connecting (each takes a place).
    func replay() -> [JournalEntry] {
        guard let journal else { return [] }
        do {
            let entries = try journal.openEntries()
            if !entries.isEmpty {
                logger.info("journal: replaying \(entries.count) message(s) not finished before the last stop")
            }
            counters.add(.replayed, entries.count)
            for _ in entries { limiter.force() }
            return entries
        } catch {
            logger.error("journal: cannot read open messages: \(error)")
            return []
        }
    }

    /// Starts the journal's periodic flush, compaction and checkpoint.
    func start() { maintenance?.start() }

    /// Stops maintenance and writes the done marks and a checkpoint; what is still open
    /// is replayed at the next start.
    func close() {
        maintenance?.stop()
        guard let journal else { return }
        do {
            try journal.compact(checkpoint: true)
        } catch {
            logger.error("journal: final compaction failed: \(error)")
        }
        let open = journal.openCount
        if open > 0 { logger.info("journal: \(open) message(s) unfinished, kept for the next start") }
    }
}

/// Side counters of intake and publishing (monotonic), shown in the stats' `delivery`. They move
/// only on drops, failures, redeliveries and replays, so one lock serves them all.
final class DeliveryCounters: Sendable {
    private let counts = Mutex(DeliveryCounts())

    /// Adds `n` to the count of `event`; returns the new count.
    @discardableResult
    func add(_ event: DeliveryEvent, _ n: Int = 1) -> Int {
        counts.withLock { c in
            c[event] += n
            return c[event]
        }
    }

    /// The counts now, with `publishRefused` (the connections count those themselves).
    func counts(publishRefused: Int) -> DeliveryCounts {
        var c = counts.withLock { $0 }
        c[.publishRefused] = publishRefused
        return c
    }
}
