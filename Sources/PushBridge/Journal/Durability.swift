import Foundation
import Synchronization

/// What the bridge does to lose nothing: admission with backpressure, the journal
/// (record on arrival, replay on start, done on acknowledgement), and publish tracking.
///
/// The bridge calls it at four points: `admit` in `on_message` (network thread),
/// `emit` when a decision is ready to publish, `acknowledged` on a PUBACK, and
/// `replay`/`close` around the run.
///
/// When a journaled message is done: a delivered one when its display publish is
/// acknowledged (PUBACK, or written for QoS 0); a rejected one when its dead letter is
/// acknowledged (at once when there is no dead-letter topic); suppressed, expired,
/// not displayed and unrouted ones at once; one whose publish cannot be made (bad topic,
/// too large, QoS 0 while offline) at once, counted in `publishFailures` and logged.
final class Durability: Sendable {
    /// Places for messages in flight beyond `extension.concurrency` (the queue bound).
    static let queueBound = 1024
    /// The MQTT 5 Receive Maximum sent on CONNECT: at most this many QoS>0 messages the
    /// broker has sent us and we have not acknowledged (below `Journal.redeliveryTail`).
    static let receiveMaximum = 1024

    let journal: Journal?
    /// Why the journal could not be opened; `run()` fails with it.
    let openError: (any Error)?
    let limiter: IntakeLimiter
    let counters = DurabilityCounters()
    private let logger: Logger
    /// How long `admit` may block the intake network thread for a place: the stage's whole
    /// budget (places also wait for PUBACKs, read by the output connection's thread).
    private let stallBudget: Duration
    private let acks = Mutex(AckTable())
    /// The intake connection's network thread (the one `admit` runs on).
    private let intakeThread = Atomic<UInt>(0)
    /// Emits held until their batch is committed (see `emit`), in emit order.
    private let held = Mutex<[HeldEmit]>([])
    private let maintenance: JournalMaintenance?

    /// What an acknowledgement finishes.
    struct AckWaiter: Sendable {
        var seq: Int64?
        /// Arrival time, for the end-to-end latency of a delivered message.
        var receivedAt: Double?
        /// The acknowledgement gives the message's intake place back (the first QoS>0
        /// publish of a decision carries it).
        var holdsPlace = false
    }

    /// The output connection's publishes waiting for their acknowledgement, by mid, and
    /// the acknowledgements that came in before `emit` had registered their publish (the
    /// lock is not held across the publish call, which would make the output connection's
    /// thread wait for the intake thread on every PUBACK).
    struct AckTable {
        var waiting: [Int32: AckWaiter] = [:]
        var early: Set<Int32> = []
    }

    /// What `admit` lets in: the id fixed on arrival and the journal row (if journaled).
    struct Admitted: Sendable {
        var id: String
        var seq: Int64?
    }

    init(config: BridgeConfig, logger: Logger) {
        self.logger = logger
        limiter = IntakeLimiter(limit: config.extension.concurrency + Self.queueBound)
        stallBudget = config.extension.timeLimit + config.extension.expireGrace + .seconds(1)
        var journal: Journal? = nil
        var openError: (any Error)? = nil
        if let j = config.journal {
            do { journal = try Journal(config: j) } catch { openError = error }
        }
        self.journal = journal
        self.openError = openError
        maintenance = journal.map { JournalMaintenance(journal: $0, logger: logger) }
    }

    // MARK: intake (network thread)

    /// Decides whether `message` enters the pipeline and makes it durable when it does.
    /// `nil`: skip it (a dropped QoS 0 message, or a redelivery of a journaled one).
    func admit(_ message: InboundMessage) -> Admitted? {
        intakeThread.store(pthread_self(), ordering: .relaxed)
        if let journal, let entry = journal.redelivery(of: message) {
            counters.redeliveriesSkipped.add(1, ordering: .relaxed)
            logger.debug("\(message.topic): redelivery of journaled message \(entry.id) skipped")
            return nil
        }
        if message.qos == 0 {
            guard limiter.tryEnter() else {
                let n = counters.qos0Dropped.add(1, ordering: .relaxed).newValue
                if n == 1 || n % 1000 == 0 {
                    logger.warning("\(limiter.limit) messages in flight: QoS 0 message on '\(message.topic)' dropped (\(n) so far)")
                }
                return nil
            }
            return Admitted(id: Self.id(for: message), seq: nil)
        }
        if !limiter.enter(maxWait: stallBudget) {
            logger.warning("intake waited \(stallBudget) for a place; taking the message anyway")
        }
        let id = Self.id(for: message)
        guard let journal else { return Admitted(id: id, seq: nil) }
        waitForJournalSpace(journal)
        do {
            return Admitted(id: id, seq: try journal.record(message, id: id))
        } catch {
            counters.journalErrors.add(1, ordering: .relaxed)
            logger.error("journal: cannot record message on '\(message.topic)': \(error); processing it without the journal")
            return Admitted(id: id, seq: nil)
        }
    }

    /// The end of a read batch (network thread, before the batch's PUBACKs are written):
    /// commits the batch's journal records together.
    /// Then publishes what `emit` held for that commit, in order.
    func readsDone() {
        guard let journal else { return }
        held.withLock { list in
            do {
                try journal.commitBatch()
            } catch {
                counters.journalErrors.add(1, ordering: .relaxed)
                logger.error("journal: cannot commit the messages just received: \(error); processing them without the journal")
            }
            // Published under the lock: an emit that finds the list empty must not overtake these.
            for h in list { publish(h.decision, seq: h.seq, receivedAt: h.receivedAt, client: h.client,
                                    output: h.output, stats: h.stats) }
            list.removeAll()
        }
    }

    /// The id fixed on arrival (the mapper still prefers the source's `apns-id`, which a
    /// replay carries too, since the journal keeps the user properties).
    static func id(for message: InboundMessage) -> String { NotificationRequest.newID() }

    /// With the journal full, waits while messages in flight may still free rows without
    /// the network thread (bounded); then takes the message anyway, counted and logged.
    private func waitForJournalSpace(_ journal: Journal) {
        guard journal.isFull else { return }
        let deadline = ContinuousClock.now + stallBudget
        while journal.isFull, limiter.inFlight > 1, ContinuousClock.now < deadline { usleep(1_000) }
        if journal.isFull {
            let n = counters.journalOverflows.add(1, ordering: .relaxed).newValue
            if n == 1 || n % 1000 == 0 {
                logger.warning("journal full (\(journal.openCount) open, max_messages \(journal.maxMessages)): the rest await acknowledgements; recording anyway (\(n) so far)")
            }
        }
    }

    /// Called on connect: a connection without a session gets no redeliveries.
    func connected(sessionPresent: Bool) {
        if !sessionPresent { journal?.closeRedeliveryWindow() }
    }

    // MARK: publishing

    /// Publishes `decision`'s messages and arranges for the journal row to be finished.
    ///
    /// The message's place is given back here, unless a QoS>0 publish is waiting for its
    /// acknowledgement: then that acknowledgement gives it back (`acknowledged`), so the
    /// publishes the broker has not acknowledged yet stay within the limiter's bound. (The
    /// acknowledgements arrive on the output connection's network thread, never on the
    /// intake thread that waits for places: see `Bridge.run`.) QoS 0 publishes, which hold
    /// no place, go out on `client` (the intake connection: no hand-over to another thread);
    /// QoS>0 ones on `output`.
    ///
    /// With the journal committing per read batch, a display must not leave before its
    /// message's record is committed: the output connection writes on its own thread, and a
    /// crash after the display but before the commit would make the broker's redelivery a
    /// new message with a new id. Such an emit (and every emit after it, to keep the order)
    /// is held and published by `readsDone` right after the commit.
    func emit(_ decision: Decision, seq: Int64?, receivedAt: Double, client: MQTTClient?, output: MQTTClient?,
              stats: Stats) {
        if let journal, journal.groupsCommits {
            let isHeld = held.withLock { list -> Bool in
                if list.isEmpty, seq.map(journal.isCommitted) ?? true { return false }
                list.append(HeldEmit(decision: decision, seq: seq, receivedAt: receivedAt, client: client,
                                     output: output, stats: stats))
                return true
            }
            if isHeld { return }
        }
        publish(decision, seq: seq, receivedAt: receivedAt, client: client, output: output, stats: stats)
    }

    /// An emit waiting for its batch's commit.
    struct HeldEmit: Sendable {
        var decision: Decision
        var seq: Int64?
        var receivedAt: Double
        var client: MQTTClient?
        var output: MQTTClient?
        var stats: Stats
    }

    private func publish(_ decision: Decision, seq: Int64?, receivedAt: Double, client: MQTTClient?,
                         output: MQTTClient?, stats: Stats) {
        // Whether a QoS>0 publish took over the journal row and the place (the first one does).
        var handedOver = false
        defer { if !handedOver { limiter.leave() } }
        let delivered = decision.outcome == .delivered
        for out in decision.publish {
            do {
                if out.qos == 0 {
                    guard let client else { throw MQTTError.notConnected }
                    try client.publish(topic: out.topic, payload: out.payload, qos: 0, retain: out.retain,
                                       userProperties: out.userProperties)
                    if delivered { stats.endToEndLatency(seconds: Date().timeIntervalSince1970 - receivedAt) }
                    continue
                }
                guard let output else { throw MQTTError.notConnected }
                // From the intake thread the output connection is woken once per read batch
                // (Bridge's onReadsDone), not once per publish.
                let onIntake = pthread_equal(pthread_self(), intakeThread.load(ordering: .relaxed)) != 0
                let mid = try output.publish(topic: out.topic, payload: out.payload, qos: out.qos,
                                             retain: out.retain, userProperties: out.userProperties,
                                             deferWake: onIntake)
                let waiter = AckWaiter(seq: handedOver ? nil : seq, receivedAt: delivered ? receivedAt : nil,
                                       holdsPlace: !handedOver)
                handedOver = true
                let alreadyAcknowledged = acks.withLock { table -> Bool in
                    if table.early.remove(mid) != nil { return true }
                    table.waiting[mid] = waiter
                    return false
                }
                if alreadyAcknowledged, let t = finish(waiter) {
                    stats.endToEndLatency(seconds: Date().timeIntervalSince1970 - t)
                }
            } catch {
                counters.publishFailures.add(1, ordering: .relaxed)
                logger.error("publish to '\(out.topic)' failed: \(error)")
            }
        }
        if !handedOver, let seq { journal?.markDone(seq) }
    }

    /// A publish of ours was acknowledged: finishes its journal row and gives its place
    /// back; returns the arrival time of a delivered message (for the latency histogram).
    /// `mid` must come from the output connection (mids are per connection); one `emit` has
    /// not registered yet is kept for it.
    func acknowledged(_ mid: Int32) -> Double? {
        let waiter = acks.withLock { table -> AckWaiter? in
            if let waiter = table.waiting.removeValue(forKey: mid) { return waiter }
            table.early.insert(mid)
            return nil
        }
        return waiter.flatMap(finish)
    }

    /// Finishes what an acknowledged publish waited for.
    private func finish(_ waiter: AckWaiter) -> Double? {
        if let seq = waiter.seq { journal?.markDone(seq) }
        if waiter.holdsPlace { limiter.leave() }
        return waiter.receivedAt
    }

    // MARK: lifecycle

    /// The journal's open messages, to process again before connecting (each takes a place).
    func replay() -> [JournalEntry] {
        guard let journal else { return [] }
        do {
            let entries = try journal.openEntries()
            if !entries.isEmpty {
                logger.info("journal: replaying \(entries.count) message(s) not finished before the last stop")
            }
            counters.replayed.add(entries.count, ordering: .relaxed)
            for _ in entries { limiter.force() }
            return entries
        } catch {
            logger.error("journal: cannot read open messages: \(error)")
            return []
        }
    }

    /// Starts the periodic flush, compaction and checkpoint.
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

/// Side counters of the durability layer (monotonic).
final class DurabilityCounters: Sendable {
    /// QoS 0 messages dropped because every place was taken.
    let qos0Dropped = Atomic<Int>(0)
    /// Publishes that could not be made (and will not be retried).
    let publishFailures = Atomic<Int>(0)
    /// Broker redeliveries of journaled messages recognized and skipped.
    let redeliveriesSkipped = Atomic<Int>(0)
    /// Journal entries replayed at start.
    let replayed = Atomic<Int>(0)
    /// Messages recorded while the journal held `max_messages` open ones.
    let journalOverflows = Atomic<Int>(0)
    /// Journal writes that failed (the message was processed without the journal).
    let journalErrors = Atomic<Int>(0)
}
