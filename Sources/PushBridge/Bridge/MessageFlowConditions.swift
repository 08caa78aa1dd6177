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
        let shared = conditions.shared
        for w in work {
            // With state.redis every replica's timer finds it due: one of them claims it and sends it.
            if let shared, !shared.claim(ConditionEngine.claimToken(w)) { continue }
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

    /// A message on the ack topic: acknowledges or snoozes. One for no active condition is
    /// counted and logged at debug (the engine does it), never an error; one that is not an
    /// acknowledgement is rejected (`rejectAcknowledgement`).
    func acknowledge(_ message: InboundMessage) {
        switch Acknowledgement.parse(message.payload) {
        case .failure(let error):
            rejectAcknowledgement(message, error)
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

    /// A payload on the ack topic that is not an acknowledgement: counted (`ack_rejected`),
    /// warned about at most once a minute (with the number held back since the last warning;
    /// the others at debug) and published to the dead-letter topic as `BadAcknowledgement`.
    func rejectAcknowledgement(_ message: InboundMessage, _ error: AckError) {
        let held = conditions.rejectAcknowledgement(now: wall())
        // Never back onto the ack topic itself: it would be rejected again, and again.
        let deadLetter = pipeline.renderer.badAcknowledgementMessage(error.description, message: message)
            .flatMap { $0.topic == message.topic ? nil : $0 }
        if held != nil || logger.enabled(.debug) {
            let shown = String(decoding: message.payload.prefix(120), as: UTF8.self)
            let text = "\(message.topic): not an acknowledgement, ignored: \(error) (payload \(JSONValue.string(shown).jsonText)"
                + (message.payload.count > 120 ? ", \(message.payload.count) bytes)" : ")")
                + (deadLetter.map { "; dead-lettered to '\($0.topic)'" } ?? "")
            if let held {
                logger.warning(text + (held > 0 ? "; \(held) more since the last warning" : "")
                               + " (one such warning a minute at most; stats conditions.ack_rejected counts them all)")
            } else {
                logger.debug(text)
            }
        }
        guard let deadLetter else { return }
        // The publisher gives a place back per decision it publishes.
        intake.limiter.force()
        var d = Decision(outcome: .notDisplayed, route: nil, rule: "not an acknowledgement: \(error)")
        d.publish = [deadLetter]
        publisher.emit(d, seq: nil, receivedAt: message.receivedAt)
    }
}
