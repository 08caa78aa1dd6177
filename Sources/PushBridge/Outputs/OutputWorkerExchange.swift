import Foundation

/// A delivery's two moments on the worker thread: its request started on the multi handle, and
/// what the service's answer makes of it (finished, retried, sent again).
extension OutputWorker {
    /// What an answer makes of a delivery.
    enum Outcome {
        /// Done: delivered, refused for good, or skipped.
        case finished
        /// Tried again after `after` seconds (the backoff when `nil`); `reason` is logged once.
        case retry(after: Double?, reason: String)
        /// Sent again at once, in the form the kind now makes (`DeliveryVerdict.resend`).
        case resend
    }

    /// Starts `d`: the request sent, without its body, and the item parsed (its answer is read
    /// against both); `nil` when it finished at once (nothing to send, or it cannot be sent).
    func start(_ d: PendingDelivery, tag: Int, done: inout [PendingDelivery]) -> (ServiceRequest, OutputMessage)? {
        guard let message = OutputMessage(json: d.item, files: d.files) else {
            logger.error("output '\(config.name)': stored item \(d.key) is not JSON; dropped")
            stats.failed.add(1, ordering: .relaxed)
            finish(d, into: &done)
            return nil
        }
        guard var request = kind.request(for: message, target: d.target) else {
            stats.skipped.add(1, ordering: .relaxed)
            logger.debug("output '\(config.name)': nothing to send for \(d.key)")
            finish(d, into: &done)
            return nil
        }
        do {
            try multi.add(CurlTransfer(request, tag: tag, timeout: config.timeout, tls: config.tls))
            request.body = []
            return (request, message)
        } catch {
            logger.error("output '\(config.name)': cannot send \(d.key): \(error)")
            stats.failed.add(1, ordering: .relaxed)
            reject(OutputRejection(output: config.name, status: 0, detail: Self.prefix(Array(error.description.utf8)), item: d.item))
            finish(d, into: &done)
            return nil
        }
    }

    /// What `answer` to the request `sent` for `d` (whose item is `message`) makes of it: the
    /// counts, the log and the dead letter of a refusal, and whether it is done.
    func outcome(of answer: HTTPAnswer, to sent: ServiceRequest, message: OutputMessage, for d: PendingDelivery) -> Outcome {
        guard case .response(let response) = answer else {
            if case .failed(let error) = answer { return .retry(after: nil, reason: error.description) }
            return .retry(after: nil, reason: "no answer")
        }
        var verdict = kind.verdict(for: response, to: sent, message: message, target: d.target)
        if case .resend(let why) = verdict {
            if !d.resent {
                logger.info("output '\(config.name)': \(why); sending \(d.key) again")
                return .resend
            }
            verdict = .rejected
        }
        switch verdict {
        case .delivered:
            stats.delivered.add(1, ordering: .relaxed)
            stats.recordLatency(max(0, Date().timeIntervalSince1970 - d.created))
        case .retry(let after):
            return .retry(after: after, reason: "HTTP \(response.status)")
        case .rejected:
            stats.failed.add(1, ordering: .relaxed)
            let detail = Self.prefix(response.body)
            logger.error("output '\(config.name)': HTTP \(response.status) for \(d.key): \(detail)")
            reject(OutputRejection(output: config.name, status: response.status, detail: detail, item: d.item))
        case .skipped(let why):
            stats.skipped.add(1, ordering: .relaxed)
            logger.debug("output '\(config.name)': \(d.key) skipped: \(why)")
        case .resend: break  // made .rejected above
        }
        return .finished
    }

    /// `d` is done here: no longer pending, its stored row or entry to be finished (`done`).
    func finish(_ d: PendingDelivery, into done: inout [PendingDelivery]) {
        stats.pending.subtract(1, ordering: .relaxed)
        if d.row != nil || d.entry != nil { done.append(d) }
        if config.fallback != nil, d.row == nil || store?.traits.marksFallbacks != true { unaccepted.withLock { $0[Self.id(d)] = nil } }
    }
}
