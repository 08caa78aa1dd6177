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

    init(config: RedisStateConfig, logger: BridgeLogger) {
        self.config = config
        connection = RedisConnection(address: config.address)
        health = StateHealth(backend: "redis", shown: config.address.shown)
        batches = RedisBatches(connection: connection, health: health, logger: logger)
        filters = RedisFilterMemory(prefix: config.prefix, batches: batches)
    }

    /// Connects (on its own thread): `/readyz` says soon whether Redis answers.
    func start() { batches.start() }

    /// Ends the thread; calls not answered stay undecided (their messages stay in the journal).
    func stop() { batches.stop() }
}
