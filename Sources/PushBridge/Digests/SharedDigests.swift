/// The digests' windows when replicas share them (`state.redis`): an alert of a route and
/// key is offered to the one window all replicas see (the first `max` of it are delivered one
/// by one, the rest held, whichever replica received them), and an ended window's summary is
/// claimed by one replica, which sends it.
protocol SharedDigests: Sendable {
    /// Offers `alert` to the shared window of `route` and `key` (opened with it when none is
    /// open: it lasts `window` seconds); once per `once` key (a replay gets the first answer).
    /// `completion`: whether it is held, and the window as it is now; once, from any thread.
    func admit(route: String, key: String, window: Double, max: Int, alert: DigestHeldRow, once: String,
               completion: @escaping @Sendable (_ held: Bool, _ window: DigestWindowRow) -> Void)

    /// The ended windows this replica claimed (each claimed by one replica; claimed again by
    /// any if it is not `sent` within the lease), or `nil` when the memory cannot be reached.
    func claimDue() -> [DigestSummary]?

    /// `summary` was sent: its window is forgotten.
    func sent(_ summary: DigestSummary)
}
