/// Exponential reconnect delays: `min`, `2·min`, `4·min`, … capped at `max`.
///
/// `reset()` after a connection the broker accepted, so a later drop starts from `min`.
struct ReconnectBackoff: Sendable, Equatable {
    let minimum: Duration
    let maximum: Duration
    private var current: Duration?

    /// A backoff between `minimum` and `maximum` (a `maximum` below `minimum` is raised to it;
    /// a zero or negative `minimum` becomes 10 ms so a failing broker is never spun on).
    init(minimum: Duration, maximum: Duration) {
        let floor = Duration.milliseconds(10)
        self.minimum = minimum > floor ? minimum : floor
        self.maximum = maximum > self.minimum ? maximum : self.minimum
    }

    /// The delay to wait now; each call doubles the next one, up to `maximum`.
    mutating func next() -> Duration {
        let delay: Duration
        if let current {
            delay = current * 2 > maximum ? maximum : current * 2
        } else {
            delay = minimum
        }
        current = delay
        return delay
    }

    /// Starts over at `minimum`.
    mutating func reset() { current = nil }
}
