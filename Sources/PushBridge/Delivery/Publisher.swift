import Foundation
import Synchronization

/// Publishes decisions and owns the two broker connections: the intake
/// connection (subscriptions, status, stats, QoS 0 displays) and the output connection
/// (QoS>0 display and dead-letter publishes, whose PUBACKs finish journal rows and give
/// intake places back on that connection's own network thread — the intake thread may be
/// waiting for a place, so it must not be the one reading them).
final class Publisher: Sendable {
    /// The intake connection.
    let intake: MQTTClient
    /// The output connection.
    let output: MQTTClient
    private let tracking: PublishTracking
    private let logger: BridgeLogger
    /// Signalled by the output connection's first CONNACK or failed attempt.
    /// (A semaphore: signalled from libmosquitto's CONNACK callback, waited for by `start`.)
    private let outputSettled = DispatchSemaphore(value: 0)
    /// The intake connection's network thread (where `onReadsDone` runs), once it has run.
    private let intakeThread = Atomic<UInt>(0)

    /// Makes both connections (not started); their log lines go to `logger`.
    init(intake options: MQTTClientOptions, output outputOptions: MQTTClientOptions,
         tracking: PublishTracking, logger: BridgeLogger) throws {
        self.tracking = tracking
        self.logger = logger
        let log: @Sendable (LogLevel, String) -> Void = { level, text in logger.log(level, text) }
        output = try MQTTClient(options: outputOptions, log: log)
        intake = try MQTTClient(options: options, log: log)
        tracking.journal?.groupCommits()
    }

    /// Starts the output connection, waits (bounded) for its first CONNACK or failure so
    /// that the first messages find it, then starts the intake connection with `handlers`;
    /// the intake connection's end-of-batch step is the publisher's (commit, then the held
    /// displays). Blocks: call it off the cooperative pool.
    func start(intake handlers: MQTTClientHandlers) {
        let settled = outputSettled, tracking = self.tracking, logger = self.logger
        let intake = self.intake, output = self.output
        output.start(handlers: MQTTClientHandlers(
            onPublished: { mid in tracking.acknowledged(mid) },
            onConnection: { event in
                if case .disconnected = event { return }
                settled.signal()
            }))
        _ = outputSettled.wait(timeout: .now() + .seconds(5))
        var intakeHandlers = handlers
        intakeHandlers.onConnection = { [weak self, onConnection = handlers.onConnection] event in
            self?.intakeThread.store(pthread_self(), ordering: .relaxed)
            onConnection(event)
        }
        // Weak: the network thread holds these handlers, and a client its own handlers held
        // could never stop by going away.
        intakeHandlers.onReadsDone = { [weak intake] in
            Self.commit(tracking, logger: logger, intake: { intake }, output: output)
            output.flushDeferredWake()
        }
        intake.start(handlers: intakeHandlers)
    }

    /// Publishes `decision`'s messages and arranges for the journal row to be finished.
    ///
    /// The message's place is given back here, unless a QoS>0 publish is waiting for its
    /// acknowledgement: then that acknowledgement gives it back, so the publishes the broker
    /// has not acknowledged yet stay within the limiter's bound.
    ///
    /// With the journal committing per read batch, a display must not leave before its
    /// message's record is committed: the output connection writes on its own thread, and a
    /// crash after the display but before the commit would make the broker's redelivery a
    /// new message with a new id. Such an emit (and every emit after it, to keep the order)
    /// is held and published right after the batch's commit.
    func emit(_ decision: Decision, seq: Int64?, receivedAt: Double) {
        if let journal = tracking.journal, journal.groupsCommits {
            let isHeld = tracking.held.withLock { list -> Bool in
                if list.isEmpty, seq.map(journal.isCommitted) ?? true { return false }
                list.append(PublishTracking.Held(decision: decision, seq: seq, receivedAt: receivedAt))
                return true
            }
            if isHeld { return }
        }
        Self.publish(decision, seq: seq, receivedAt: receivedAt, tracking: tracking, logger: logger,
                     intake: intake, output: output, onIntakeThread: onIntakeThread)
    }

    private var onIntakeThread: Bool {
        pthread_equal(pthread_self(), intakeThread.load(ordering: .relaxed)) != 0
    }

    /// The end of a read batch (intake network thread, before the batch's PUBACKs are
    /// written): commits the batch's journal records, then publishes what was held for them.
    private static func commit(_ tracking: PublishTracking, logger: BridgeLogger, intake: () -> MQTTClient?,
                               output: MQTTClient) {
        guard let journal = tracking.journal else { return }
        tracking.held.withLock { list in
            // The intake client (a weak reference's load) only for a batch with held displays.
            let intake = list.isEmpty ? nil : intake()
            do {
                try journal.commitBatch()
            } catch {
                tracking.counters.add(.journalErrors)
                logger.error("journal: cannot commit the messages just received: \(error); processing them without the journal")
            }
            // Published under the lock: an emit that finds the list empty must not overtake these.
            for h in list {
                publish(h.decision, seq: h.seq, receivedAt: h.receivedAt, tracking: tracking, logger: logger,
                        intake: intake, output: output, onIntakeThread: true)
            }
            list.removeAll()
        }
    }

    /// QoS 0 publishes go out on the intake connection (no hand-over to another thread),
    /// QoS>0 ones on the output connection; from the intake thread the output connection is
    /// woken once per read batch, not once per publish.
    private static func publish(_ decision: Decision, seq: Int64?, receivedAt: Double, tracking: PublishTracking,
                                logger: BridgeLogger, intake: MQTTClient?, output: MQTTClient, onIntakeThread: Bool) {
        // Whether a QoS>0 publish took over the journal row and the place (the first one does).
        var handedOver = false
        defer { if !handedOver { tracking.limiter.leave() } }
        let delivered = decision.outcome == .delivered
        for out in decision.publish {
            do {
                if out.qos == 0 {
                    guard let intake else { throw MQTTError.notConnected }
                    try intake.publish(topic: out.topic, payload: out.payload, qos: 0, retain: out.retain,
                                       userProperties: out.userProperties)
                    if delivered { tracking.delivered(Date().timeIntervalSince1970 - receivedAt) }
                    continue
                }
                let mid = try output.publish(topic: out.topic, payload: out.payload, qos: out.qos, retain: out.retain,
                                             userProperties: out.userProperties, deferWake: onIntakeThread)
                tracking.register(mid, .init(seq: handedOver ? nil : seq, receivedAt: delivered ? receivedAt : nil,
                                             holdsPlace: !handedOver))
                handedOver = true
            } catch {
                tracking.counters.add(.publishFailed)
                logger.error("publish to '\(out.topic)' failed: \(error)")
            }
        }
        if !handedOver, let seq { tracking.journal?.markDone(seq) }
    }
}
