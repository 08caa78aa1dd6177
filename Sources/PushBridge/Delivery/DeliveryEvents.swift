/// What the message path tells monitoring, and all it tells it: monitoring sees the running
/// bridge only through these calls (they must be quick; they run on the message path).
protocol BridgeEvents: Sendable {
    /// A message entered the pipeline (UNIX seconds); returns the slot `finished` gets back.
    func received(topic: String, at time: Double) -> Int
    /// A message's decision was handed to the publisher (`slot` from `received`).
    func finished(slot: Int, topic: String, id: String, decision: Decision)
    /// A route with `continue: true` decided a message that goes on to the next route: counted
    /// for that route only (the message's outcome is the last route's); the feed shows it.
    func routeDecided(topic: String, id: String, decision: Decision)
    /// A condition's own notification (repeat, step) or an acknowledgement was decided: not
    /// a received message, so no outcome is counted; the decision feed shows it.
    func conditionDecided(topic: String, id: String, decision: Decision)
    /// A message was dropped before the pipeline.
    func skipped(_ reason: SkipReason, topic: String)
    /// The intake connection went up (`true`) or down.
    func connection(up: Bool)
}

/// Why a message never reached the pipeline.
enum SkipReason: Sendable {
    /// It carries this bridge's hop property: one of its own displays (loop protection).
    case loop
    /// Its topic belongs to another replica (`partition:`).
    case partition
}
