/// A bridge's shared state in Redis (`state.redis`): the connection, its health, the thread
/// that sends the script calls in batches, and what is kept there (the remembering filters'
/// memory). Made once per process; a reload keeps it (changing `state` needs a restart).
final class RedisState: Sendable {
    let config: RedisStateConfig
    let connection: RedisConnection
    /// Whether Redis answers, and each operation's figures (stats, `/metrics`, `/readyz`).
    let health: StateHealth
    let batches: RedisBatches
    /// The `dedupe`, `rate_limit` and `changed` filters' memory.
    let filters: RedisFilterMemory
    /// The conditions: transitions, claims of repeats and steps, the shared set.
    let conditions: RedisConditions

    /// `client`: this replica's name in Redis (its `broker.client_id`).
    init(config: RedisStateConfig, client: String, logger: BridgeLogger) {
        self.config = config
        connection = RedisConnection(address: config.address)
        health = StateHealth(backend: "redis", shown: config.address.shown)
        batches = RedisBatches(connection: connection, health: health, logger: logger)
        filters = RedisFilterMemory(prefix: config.prefix, batches: batches)
        conditions = RedisConditions(prefix: config.prefix, client: client, connection: connection, batches: batches, health: health)
    }

    /// Connects (on its own thread): `/readyz` says soon whether Redis answers.
    func start() { batches.start() }

    /// Ends the thread; calls not answered stay undecided (their messages stay in the journal).
    func stop() {
        conditions.stop()
        batches.stop()
    }
}
