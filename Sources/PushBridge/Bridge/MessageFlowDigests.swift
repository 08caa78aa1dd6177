import Foundation

/// The digests' side of the message path: when a window ends, its held alerts go out as one
/// summary, to the display topic and the outputs like a delivered alert.
extension MessageFlow {
    /// The digest routes' windows (the pipeline's; kept across reloads).
    var digests: DigestBook { pipeline.digests }

    /// Starts the digests' timer: each summary that falls due is sent (`sendDigests`).
    func startDigestTimer() {
        digests.start { [weak self] summaries, now in self?.sendDigests(summaries, now: now) }
    }

    /// Sends what is due now (a test that moves its clock; the timer does this by itself).
    func fireDigests() {
        digests.fire { [weak self] summaries, now in self?.sendDigests(summaries, now: now) }
    }

    /// Sends each summary: stored for the outputs (with a journal: under the summary's own id,
    /// so a resend after a crash is recognised), published to the display topic, shown in the
    /// decision feed, then counted and removed from the journal.
    func sendDigests(_ summaries: [DigestSummary], now: Double) {
        let pipeline = self.pipeline
        for summary in summaries {
            let topic = summary.held.last?.topic ?? ""
            guard let d = pipeline.digestSummary(summary, now: now) else {
                logger.warning("digest of route '\(summary.route)': the route is gone; its \(summary.held.count) held alert(s) are dropped")
                digests.sent(summary)
                continue
            }
            outputs?.delivered(d, sourceTopic: topic, receivedAt: now)
            // The publisher gives a place back per decision it publishes.
            intake.limiter.force()
            publisher.emit(d, seq: nil, receivedAt: now)
            if logger.enabled(.debug) { logger.debug("\(topic): \(d.outcome.rawValue) (\(d.rule))") }
            events.conditionDecided(topic: topic, id: summary.id, decision: d)
            homeAssistant?.delivered(d, sourceTopic: topic, client: publisher.intake)
            digests.sent(summary)
        }
    }
}
