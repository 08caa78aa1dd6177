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
        let shown = config.address.shown
        health = StateHealth(backend: "redis", shown: shown) { up, why in
            if up {
                logger.info("state: Redis at \(shown) answers again; the waiting messages are decided")
            } else {
                logger.error("state: Redis at \(shown) does not answer (\(why)); messages of the stateful routes wait in the journal until it does, and /readyz says so")
            }
        }
        batches = RedisBatches(connection: connection, health: health)
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
