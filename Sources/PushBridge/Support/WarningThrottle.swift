/// At most one warning per `interval` about one kind of trouble, however often it happens:
/// the first one is told at once, the later ones within the interval are only counted, and
/// the next warning says how many were held back.
struct WarningThrottle: Sendable, Equatable {
    /// Seconds between two warnings.
    let interval: Double
    /// When the last warning was due (the clock `note` is given), if one was.
    private(set) var lastWarning: Double?
    /// The occurrences since the last warning that were not warned about.
    private(set) var held = 0

    init(interval: Double) { self.interval = interval }

    /// One more occurrence at `now`: the number held back since the last warning when a
    /// warning is due now (0 for the first), `nil` when it is only counted. A clock that goes
    /// back (a wall clock set back) counts as a new interval.
    mutating func note(now: Double) -> Int? {
        if let last = lastWarning, now >= last, now - last < interval {
            held += 1
            return nil
        }
        defer {
            lastWarning = now
            held = 0
        }
        return held
    }
}
