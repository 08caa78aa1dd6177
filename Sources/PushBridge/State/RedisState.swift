import Synchronization

/// A bridge's shared state in Redis (`state.redis`): the connection, its health, the thread
/// that sends the script calls in batches, what is kept there (the remembering filters'
/// memory, the conditions, the digests' windows), and the thread that every second reads the
/// conditions back and claims the digests' ended windows. Made once per process; a reload
/// keeps it (changing `state` needs a restart).
final class RedisState: Sendable {
    /// How often the conditions are read back and the ended digest windows claimed.
    static let syncInterval: Duration = .seconds(1)

    let config: RedisStateConfig
    let connection: RedisConnection
    /// Whether Redis answers, and each operation's figures (stats, `/metrics`, `/readyz`).
    let health: StateHealth
    let batches: RedisBatches
    /// The `dedupe`, `rate_limit` and `changed` filters' memory.
    let filters: RedisFilterMemory
    /// The conditions: transitions, claims of repeats and steps, the shared set.
    let conditions: RedisConditions
    /// The digests' windows.
    let digests: RedisDigests
    private let worker = Worker(name: "redis-sync")
    private let syncing = Atomic<Bool>(false)

    /// `client`: this replica's name in Redis (its `broker.client_id`).
    init(config: RedisStateConfig, client: String, logger: BridgeLogger) {
        self.config = config
        connection = RedisConnection(address: config.address)
        let shown = config.address.shown
        health = StateHealth(backend: "redis", shown: shown) { up, why in
            if up {
                logger.info("state: Redis at \(shown) answers again; the waiting messages are decided")
            } else {
                logger.error("state: Redis at \(shown) does not answer (\(why)); messages of the stateful routes and the outputs' new deliveries wait in the journal until it does, and /readyz says so")
            }
        }
        batches = RedisBatches(connection: connection, health: health)
        filters = RedisFilterMemory(prefix: config.prefix, batches: batches)
        conditions = RedisConditions(prefix: config.prefix, client: client, connection: connection, batches: batches, health: health)
        digests = RedisDigests(prefix: config.prefix, lease: config.claimAfter, connection: connection, batches: batches, health: health)
    }

    /// Every `syncInterval`: `engine` takes the shared conditions (`reconcile`, then `changed`:
    /// its timer re-arms) and the digests' ended windows this replica claimed go to `summaries`.
    func startSync(conditions engine: ConditionEngine, wall: @escaping @Sendable () -> Double,
                   changed: @escaping @Sendable () -> Void, summaries: @escaping @Sendable ([DigestSummary], Double) -> Void) {
        guard !syncing.exchange(true, ordering: .acquiringAndReleasing) else { return }
        worker.submit { [self] in
            repeat {
                if let shared = conditions.all() {
                    engine.reconcile(shared, now: wall())
                    changed()
                }
                if let due = digests.claimDue(), !due.isEmpty { summaries(due, wall()) }
            } while !worker.stopRequested(within: Self.syncInterval)
        }
    }

    /// Connects (on its own thread): `/readyz` says soon whether Redis answers.
    func start() { batches.start() }

    /// Ends the thread; calls not answered stay undecided (their messages stay in the journal).
    func stop() {
        worker.stop()
        if syncing.load(ordering: .acquiring) { worker.join() }
        batches.stop()
    }
}
