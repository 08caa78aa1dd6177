import Foundation
import Synchronization

/// The per-message path of a running bridge: the intake connection's `on_message` →
/// (Home Assistant, partition, loop check) → `Intake.admit` → `Pipeline.decide` →
/// `TopicSequencer` → `Publisher.emit`, with every step reported through `BridgeEvents`.
final class MessageFlow: Sendable {
    /// The pipeline for the current config; a reload swaps it.
    private let pipelineSlot: Mutex<Pipeline>
    let intake: Intake
    /// The connections (the intake connection answers Home Assistant's birth message).
    let publisher: Publisher
    let events: any BridgeEvents
    let homeAssistant: HomeAssistantLink?
    /// The services a delivered alert also goes to (`outputs:`); the hand-off never waits for them.
    let outputs: OutputSet?
    /// The topics this replica handles (`partition:`); `nil`: every topic.
    let partition: Partition?
    private let hop: (name: String, value: String)
    let logger: BridgeLogger
    let sequencer: TopicSequencer<Finished>
    /// Messages received and not yet handed to the publisher, and the drain's wake-up.
    let inFlight = FlightCount()
    /// The conditions of the condition routes (kept across reloads).
    let conditions: ConditionEngine
    /// Where acknowledgements arrive (`conditions.ack_topic`).
    let ackTopic: String?
    /// The conditions' one timer.
    let conditionTimer: ConditionTimer
    /// The clock conditions are read on.
    let wall: @Sendable () -> Double
    /// The people (`people:`): presence messages are taken here.
    let people: PeopleDesk?

    final class FlightCount: Sendable {
        let count = Atomic<Int>(0)
        let drained = WaitGate()
    }

    /// A decided message on its way to the publisher.
    struct Finished: Sendable {
        var topic: String
        /// The message's id (the decision feed shows it).
        var id: String
        var receivedAt: Double
        var decision: Decision
        /// The journal row, when the message was journaled.
        var seq: Int64?
        /// The slot `BridgeEvents.received` gave; `nil` for a condition's own notification.
        var slot: Int?
        /// A decision of a route that handed the message on (`continue: true`).
        var handedOn = false
    }

    init(pipeline: Pipeline, intake: Intake, publisher: Publisher, events: any BridgeEvents,
         homeAssistant: HomeAssistantLink?, outputs: OutputSet?, partition: Partition?, hop: (name: String, value: String), logger: BridgeLogger,
         ackTopic: String? = nil, wall: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
         automaticConditionTimer: Bool = true, people: PeopleDesk? = nil) {
        pipelineSlot = Mutex(pipeline)
        self.people = people
        self.intake = intake
        self.publisher = publisher
        self.events = events
        self.homeAssistant = homeAssistant
        self.outputs = outputs
        self.partition = partition
        self.hop = hop
        self.logger = logger
        let inFlight = self.inFlight
        conditions = pipeline.conditions
        self.ackTopic = ackTopic
        self.wall = wall
        let timer = ConditionTimer(engine: pipeline.conditions, wall: wall, automatic: automaticConditionTimer)
        conditionTimer = timer
        sequencer = TopicSequencer { f in
            // Stored for the outputs (with a journal) before the display publish can finish the
            // message's own journal row: a crash between the two loses neither.
            outputs?.delivered(f.decision, sourceTopic: f.topic, receivedAt: f.receivedAt)
            publisher.emit(f.decision, seq: f.seq, receivedAt: f.receivedAt)
            if logger.enabled(.debug) { logger.debug("\(f.topic): \(f.decision.outcome.rawValue) (\(f.decision.rule))") }
            if let slot = f.slot {
                events.finished(slot: slot, topic: f.topic, id: f.id, decision: f.decision)
            } else if f.handedOn {
                events.routeDecided(topic: f.topic, id: f.id, decision: f.decision)
            } else {
                events.conditionDecided(topic: f.topic, id: f.id, decision: f.decision)
            }
            homeAssistant?.delivered(f.decision, sourceTopic: f.topic, client: publisher.intake)
            if let event = f.decision.conditionEvent {
                // A repeat held back (quiet hours) is not one: it is tried again on schedule.
                if event.kind != .repeated || f.decision.outcome == .delivered {
                    homeAssistant?.condition(event, client: publisher.intake)
                }
                timer.rearm()
            }
            if inFlight.count.subtract(1, ordering: .sequentiallyConsistent).newValue == 0 { inFlight.drained.notify() }
        }
    }

    /// The pipeline messages arriving now go through.
    var pipeline: Pipeline { pipelineSlot.withLock { $0 } }

    /// Installs `new` for messages arriving from now on; returns the previous one.
    func swapPipeline(_ new: Pipeline) -> Pipeline {
        pipelineSlot.withLock { slot in
            defer { slot = new }
            return slot
        }
    }

    /// Messages received and not yet handed to the publisher.
    var messagesInFlight: Int { inFlight.count.load(ordering: .relaxed) }

    /// Waits (blocking) until no message is in flight or `deadline` passes.
    func waitUntilDrained(by deadline: ContinuousClock.Instant) {
        _ = inFlight.drained.wait(until: deadline) { inFlight.count.load(ordering: .sequentiallyConsistent) == 0 }
    }

    /// A message from the intake connection (its network thread, inside `on_message`).
    func receive(_ message: InboundMessage) {
        if let homeAssistant, homeAssistant.intercept(message, client: publisher.intake) { return }
        if message.topic == ackTopic {
            acknowledge(message)
            return
        }
        // Payloads the routes read (an attachment's bytes, a lookup's discovery config): kept
        // as the topic's newest; decided as a message only when a route matches the topic too.
        let current = pipeline
        // A person's presence: recorded (held alerts go out when someone arrives); decided as
        // a message only when a route matches the topic too.
        if let people, people.receive(message, release: { outputs?.releaseHeld() }),
           current.table.matchIndex(message.topic) == nil {
            return
        }
        if current.attachments != nil || current.lookups != nil, current.intercept(message),
           current.table.matchIndex(message.topic) == nil {
            return
        }
        // Another partition's topic: dropped before the journal and the pipeline; returning
        // lets libmosquitto send the QoS 1 PUBACK as for any message.
        if let partition, !partition.handles(topic: message.topic) {
            events.skipped(.partition, topic: message.topic)
            return
        }
        // A second copy from a partly overlapping subscription (MQTT 5 identifiers): the first
        // is decided; libmosquitto acknowledges this one as for any message.
        if !message.subscriptionIdentifiers.isEmpty, let copies = current.duplicateCopies,
           !copies.isFirstCopy(topic: message.topic, identifiers: message.subscriptionIdentifiers) {
            if logger.enabled(.debug) { logger.debug("\(message.topic): a second copy (overlapping subscriptions): dropped") }
            return
        }
        if message.property(hop.name) == hop.value {
            events.skipped(.loop, topic: message.topic)
            return
        }
        guard let admitted = intake.admit(message) else { return }
        // A live message is decided at its arrival time (one clock read fewer per message).
        process(message, id: admitted.id, seq: admitted.seq, now: message.receivedAt, in: current)
    }

    /// Decides `message` (live, or replayed from the journal) and queues it on its topic.
    /// `pipeline`: the one `receive` already read (one lock fewer per message); by default the
    /// current one.
    func process(_ message: InboundMessage, id: String, seq: Int64?, now: Double = Date().timeIntervalSince1970,
                 in pipeline: Pipeline? = nil) {
        // `now` is the arrival time of a live message, a fresh clock read for a replayed one.
        let slot = events.received(topic: message.topic, at: now)
        inFlight.count.add(1, ordering: .relaxed)
        let pipeline = pipeline ?? self.pipeline
        var index = pipeline.table.matchIndex(message.topic)
        // Routes with `continue: true` decide it first, each in turn; the last route's decision
        // is the message's outcome and finishes its journal row (a replay after a crash decides
        // the whole chain again: a condition already raised is not raised twice).
        while let i = index, let next = pipeline.table.continuation(after: i, topic: message.topic) {
            index = next
            // Its own request id: two routes' notifications are two notifications; made from the
            // message's, so a replay after a crash has the same (and the shared memory's answer).
            let own = NotificationRequest.derivedID(id, index: i)
            let step = pipeline.decide(message, id: own, now: now, at: i)
            if case .decided(let d) = step, d.passedOver { continue }  // a condition that nothing changed
            intake.limiter.force()  // the publisher gives a place back per decision
            inFlight.count.add(1, ordering: .relaxed)
            let receivedAt = message.receivedAt
            queue(step, topic: message.topic) { decision in
                Finished(topic: message.topic, id: own, receivedAt: receivedAt, decision: decision, seq: nil, slot: nil,
                         handedOn: true)
            }
        }
        switch pipeline.decide(message, id: id, now: now, at: index) {
        case .decided(let decision):
            // Decided here: no ticket, no lane, no closure (the common case).
            sequencer.pass(message.topic, Finished(topic: message.topic, id: id, receivedAt: message.receivedAt,
                                                   decision: decision, seq: seq, slot: slot))
        case .waiting(let waiting):
            let ticket = sequencer.enter(message.topic)
            let sequencer = self.sequencer
            waiting.start { decision in
                sequencer.complete(ticket, Finished(topic: message.topic, id: id, receivedAt: message.receivedAt,
                                                    decision: decision, seq: seq, slot: slot))
            }
        }
    }

    /// Queues `step`'s decision on `topic`, as `finished` makes it.
    func queue(_ step: Pipeline.Step, topic: String, finished: @escaping @Sendable (Decision) -> Finished) {
        switch step {
        case .decided(let decision):
            sequencer.pass(topic, finished(decision))
        case .waiting(let waiting):
            let ticket = sequencer.enter(topic)
            let sequencer = self.sequencer
            waiting.start { decision in sequencer.complete(ticket, finished(decision)) }
        }
    }
}
