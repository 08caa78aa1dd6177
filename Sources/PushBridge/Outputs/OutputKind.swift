/// One kind of output (ntfy, webhook, Web Push): how an item becomes HTTP
/// requests and what the answers mean. The queue, the journal rows, retries, dead letters
/// and the counters are the worker's (`OutputWorker`), the same for every kind.
///
/// An item is delivered to each of the kind's *targets* separately: one delivery (one
/// journal row, one retry schedule) per `(item, target)`. ntfy and webhook have one target,
/// `""`; a kind with many recipients (Web Push: one per subscription endpoint) returns their ids
/// from `targets(for:)` and answers per target, so one failing recipient is retried alone.
protocol OutputKind: Sendable {
    /// The config key (`ntfy`, `webhook`): in logs and the stats.
    var kindName: String { get }

    /// The targets `item` goes to, decided when it is handed over (on the message path:
    /// no network, no waiting). Empty: the item goes nowhere (not counted).
    func targets(for item: OutputItem) -> [String]

    /// The request that delivers `message` to `target`; `nil`: nothing is to be sent for it
    /// (a withdraw the server cannot do, a target that is gone), counted as skipped.
    func request(for message: OutputMessage, target: String) -> ServiceRequest?

    /// What `response` to `request` (as `request(for:target:)` made it, without its body)
    /// means for this delivery. A kind may update its own state here (what the server
    /// supports; Web Push removes a subscription on 404/410 and answers `.skipped`; ntfy
    /// learns that the server refuses uploads and answers `.resend`). Transport failures
    /// never reach it: they are always retried.
    func verdict(for response: ServiceResponse, to request: ServiceRequest, message: OutputMessage,
                 target: String) -> DeliveryVerdict
}

/// What one answer means for one delivery.
enum DeliveryVerdict: Sendable, Equatable {
    /// Accepted (2xx): the journal row is finished.
    case delivered
    /// Try again later: at `after` seconds from now when the service said so (`Retry-After`),
    /// otherwise after the backoff.
    case retry(after: Double?)
    /// Refused for good: the dead-letter topic gets it (`OutputRejected`).
    case rejected
    /// Finished without sending (the reason is logged at debug).
    case skipped(String)
    /// The service refused the form of the request, and the kind now makes another one for
    /// the same delivery (ntfy: an attachment upload refused, its link sent instead): sent
    /// again at once, not counted as a retry; the reason is logged at info. At most once per
    /// delivery: a second refusal is `.rejected`.
    case resend(String)
}

extension OutputKind {
    /// 2xx delivered; 408, 425, 429 and 5xx retried (with `Retry-After` when given); other
    /// statuses rejected.
    static func standardVerdict(_ response: ServiceResponse, now: Double) -> DeliveryVerdict {
        switch response.status {
        case 200..<300: return .delivered
        case 408, 425, 429, 500..<600:
            return .retry(after: response.headers["retry-after"].flatMap { RetryAfter.seconds($0, now: now) })
        default: return .rejected
        }
    }

    func targets(for item: OutputItem) -> [String] { [""] }
}
