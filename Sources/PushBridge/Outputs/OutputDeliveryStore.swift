/// Where the outputs' deliveries wait until their service accepted them (docs/outputs.md):
/// the journal's table (`JournalDeliveryStore`, one bridge) or one Redis stream per output
/// (`RedisDeliveryStore`, replicas sharing `state.redis`). Chosen at start; a third backend
/// is one more type behind this protocol.
///
/// `add` is called on the message path (and by a worker adding what waited in memory);
/// everything else on the output's own worker thread.
protocol OutputDeliveryStore: Sendable {
    /// The backend's name in logs (`journal`, `Redis streams`): "kept in the journal".
    var backend: String { get }
    /// How the store behaves where the backends differ.
    var traits: OutputStoreTraits { get }
    /// Stores the deliveries of one item, each row once: a row whose `(output, key, target)`
    /// was already stored is left as it is. Returns, per row, whether it is new.
    func add(_ rows: [DeliveryRowKey], item: [UInt8], files: [String], created: Double) throws(OutputStoreError) -> [Bool]
    /// The open deliveries of `output` this bridge counts as its own at start (`nil`: none are
    /// counted before they are read).
    func initialPending(output: String) throws(OutputStoreError) -> Int?
    /// Up to `limit` deliveries of `output` to try next, after those `cursor` has seen.
    func read(output: String, cursor: inout DeliveryCursor, limit: Int) throws(OutputStoreError) -> [PendingDelivery]
    /// `deliveries` of `output` are finished: accepted, refused for good, or nothing to send.
    func finish(_ deliveries: [PendingDelivery], output: String) throws(OutputStoreError)
    /// The periodic upkeep of `output` (`traits.upkeepInterval`): keeps `held` (the deliveries
    /// this bridge has in hand) its own and takes over up to `claimRoom` of those another
    /// stopped handling (0: none, e.g. while its own earlier ones are still being read).
    func upkeep(output: String, held: [PendingDelivery], claimRoom: Int) -> DeliveryUpkeep
    /// Open deliveries of `output` handed over at or before `handedBefore` and not yet handed to
    /// its fallback (only with `traits.marksFallbacks`).
    func overdue(output: String, handedBefore: Double) throws(OutputStoreError) -> [PendingDelivery]
    /// Marks `deliveries` as handed to their output's fallback (only with `traits.marksFallbacks`).
    func markFellBack(_ deliveries: [PendingDelivery]) throws(OutputStoreError)
    /// When the oldest open delivery of `output` not yet handed to its fallback was handed over.
    func oldestUnfallen(output: String) throws(OutputStoreError) -> Double?
}

/// Where the delivery stores differ, as the worker and the hand-off see it.
struct OutputStoreTraits: Sendable, Equatable {
    /// Other bridges read the same deliveries: a worker counts as pending what it holds, not
    /// what it stored, and stops reading new ones when it stops.
    var shared = false
    /// An `add` that failed is kept in memory and tried again (`true`), never delivered from
    /// memory alone; `false`: the deliveries are sent from memory (logged).
    var retriesAdds = false
    /// The store remembers which deliveries were handed to a fallback; otherwise the worker
    /// remembers those it holds, in memory.
    var marksFallbacks = true
    /// Seconds between two `upkeep` calls; `nil`: never called.
    var upkeepInterval: Double?
}

/// One delivery to store: which output, which item, which of the output's targets.
struct DeliveryRowKey: Sendable, Equatable {
    var output: String
    /// The item's key (`OutputItem.key`).
    var key: String
    /// Empty for ntfy and webhook; a subscription's endpoint for Web Push.
    var target: String
}

/// How far a worker has read its store: the journal's last row, or the Redis stream's
/// entries this consumer already had (read again after a restart, before any new one).
struct DeliveryCursor: Sendable, Equatable {
    /// The journal's last row read.
    var row: Int64 = 0
    /// The last of this consumer's own pending entries read (`0` at start); `nil` once they
    /// were all read and only new entries remain.
    var ownEntries: String? = "0"
}

/// What an upkeep found.
struct DeliveryUpkeep: Sendable {
    /// Deliveries taken over from a bridge that stopped handling them: this one tries them now.
    var claimed: [PendingDelivery] = []
    /// Entries of `held` that another bridge took over: this one must not start them.
    var lost: Set<String> = []
    /// Until when (seconds since 1970) held deliveries may be started: past it another bridge
    /// may take them over (the store could not be reached to keep them). `nil`: no limit.
    var startBefore: Double?
    /// The store could not be reached (the worker tries again at the next upkeep).
    var unreachable = false
}

/// Why the delivery store could not be used (the database's or the server's words).
struct OutputStoreError: Error, CustomStringConvertible, Sendable, Equatable {
    let description: String
    init(_ description: String) { self.description = description }
}
