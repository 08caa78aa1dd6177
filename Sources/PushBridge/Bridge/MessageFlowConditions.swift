import Foundation

/// The conditions' side of the message path: their own notifications (repeats, steps) go
/// through the pipeline and the topic sequencer like messages, and acknowledgements arrive
/// on `conditions.ack_topic`.
extension MessageFlow {
    /// Starts the conditions' timer: what falls due is decided and published (`notify`).
    func startConditionTimer() {
        conditionTimer.start { [weak self] work, now in self?.notify(work, now: now) }
    }

    /// Runs what is due now (a test that moves its clock; the timer does this by itself).
    func fireConditions() {
        conditionTimer.fire { [weak self] work, now in self?.notify(work, now: now) }
    }

    /// Decides and publishes the due `work` (the timer's queue). Each notification takes an
    /// intake place (the publisher gives one back per decision) and keeps its topic's order.
    func notify(_ work: [ConditionEngine.Work], now: Double) {
        let pipeline = self.pipeline
        for w in work {
            guard let step = pipeline.conditionNotification(w, now: now) else { continue }
            intake.limiter.force()
            inFlight.count.add(1, ordering: .relaxed)
            let conditions = self.conditions
            let report: @Sendable (Decision) -> Void = { d in
                if case .repeat = w.kind {
                    conditions.repeatFinished(route: w.record.route, key: w.record.key, alertID: w.record.alertID,
                                              delivered: d.outcome == .delivered)
                }
            }
            let topic = w.record.topic
            queue(step, topic: topic) { d in
                report(d)
                return Finished(topic: topic, id: d.request?.identifier ?? w.record.alertID, receivedAt: now,
                                decision: d, seq: nil, slot: nil)
            }
        }
    }

    /// A message on the ack topic: acknowledges or snoozes; anything else is counted and
    /// logged at debug, never an error.
    func acknowledge(_ message: InboundMessage) {
        switch Acknowledgement.parse(message.payload) {
        case .failure(let error):
            conditions.countUnknownAcknowledgement()
            logger.debug("\(message.topic): not an acknowledgement (\(error))")
        case .success(let ack):
            guard let r = conditions.acknowledge(ack, now: wall()) else { return }
            let kind: ConditionEventKind = ack.snooze == nil ? .acknowledged : .snoozed
            var d = Decision(outcome: .notDisplayed, route: r.route,
                             rule: "condition '\(r.key)' \(kind.rawValue)" + (ack.by.map { " by \($0)" } ?? "")
                                 + (r.snoozedUntil.map { " until \(Timestamp.iso8601($0))" } ?? ""))
            d.decidedBy = "condition"
            let collapse = pipeline.collapseID(r, context: MessageContext(topic: r.topic, payload: .null, raw: "", route: r.route))
            d.conditionEvent = ConditionEvent(kind: kind, record: r, collapseID: collapse)
            events.conditionDecided(topic: r.topic, id: r.alertID, decision: d)
            homeAssistant?.condition(d.conditionEvent!, client: publisher.intake)
            conditionTimer.rearm()
        }
    }
}
