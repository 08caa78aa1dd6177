/// One delivery in a worker's hands: an item for one target, with its retry state.
struct PendingDelivery: Sendable {
    /// The journal row; `nil` without a journal.
    var row: Int64?
    /// The Redis stream entry's id (`state.redis`); `nil` otherwise.
    var entry: String? = nil
    var key: String
    var target: String
    var item: [UInt8]
    /// The item's stored attachment files (`OutputItem.files`).
    var files: [String] = []
    /// When it was handed over (seconds since 1970): the added latency is counted from here.
    var created: Double
    var attempts = 0
    /// When the next attempt may start (seconds since 1970).
    var due: Double = 0
    /// The earliest time the service itself asked for (`Retry-After`), 0 when it did not: a
    /// recovered service (another target's success) does not start it sooner.
    var notBefore: Double = 0
    /// The kind asked to send it again in another form (`DeliveryVerdict.resend`): once only.
    var resent = false
}

/// A refused delivery on its way to the dead-letter topic.
struct OutputRejection: Sendable {
    var output: String
    var status: Int
    /// The first 200 bytes of the answer (or the setup error).
    var detail: String
    var item: [UInt8]
}
