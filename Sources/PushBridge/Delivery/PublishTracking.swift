import Foundation
import Synchronization

/// The publisher's book-keeping: which output-connection publish finishes which journal row
/// and gives back which intake place, and the displays held until their batch is committed.
///
/// When a journaled message is done: a delivered one when its display publish is
/// acknowledged (PUBACK, or written for QoS 0); a rejected one when its dead letter is
/// acknowledged (at once when there is no dead-letter topic); suppressed, expired, not
/// displayed and unrouted ones at once; one whose publish cannot be made (bad topic, too
/// large, QoS 0 while offline) at once, counted in `publishFailures` and logged.
final class PublishTracking: Sendable {
    let journal: Journal?
    let limiter: IntakeLimiter
    let counters: DeliveryCounters
    /// Told each delivered display's end-to-end latency: seconds from its message's arrival
    /// to its acknowledgement (QoS>0) or write (QoS 0).
    let delivered: @Sendable (_ after: Double) -> Void
    /// The output connection's publishes waiting for their acknowledgement, by mid (the lock
    /// is not held across the publish call: see `PublishAcknowledgements`).
    private let acks = Mutex(PublishAcknowledgements<AckWaiter>())
    /// Emits held until their batch is committed (see `Publisher.emit`), in emit order.
    let held = Mutex<[Held]>([])

    /// What an acknowledgement finishes.
    struct AckWaiter: Sendable {
        var seq: Int64?
        /// Arrival time, for the end-to-end latency of a delivered message.
        var receivedAt: Double?
        /// The acknowledgement gives the message's intake place back (the first QoS>0
        /// publish of a decision carries it).
        var holdsPlace = false
    }

    /// An emit waiting for its batch's commit.
    struct Held: Sendable {
        var decision: Decision
        var seq: Int64?
        var receivedAt: Double
    }

    init(journal: Journal?, limiter: IntakeLimiter, counters: DeliveryCounters,
         delivered: @escaping @Sendable (_ after: Double) -> Void) {
        self.journal = journal
        self.limiter = limiter
        self.counters = counters
        self.delivered = delivered
    }

    /// Registers the output-connection publish `mid` (made for `waiter`); finishes at once
    /// when its acknowledgement came first.
    func register(_ mid: Int32, _ waiter: AckWaiter) {
        let recorded = acks.withLock { $0.register(mid, waiter) }
        if !recorded { finish(waiter) }
    }

    /// An output-connection publish was acknowledged (its network thread).
    func acknowledged(_ mid: Int32) {
        if let waiter = acks.withLock({ $0.acknowledge(mid) }) { finish(waiter) }
    }

    /// Finishes what an acknowledged publish waited for.
    private func finish(_ waiter: AckWaiter) {
        if let seq = waiter.seq { journal?.markDone(seq) }
        if waiter.holdsPlace { limiter.leave() }
        if let t = waiter.receivedAt { delivered(Date().timeIntervalSince1970 - t) }
    }
}
