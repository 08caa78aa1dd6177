/// Publishes waiting for their acknowledgement, by mid, for a caller that records a mid only
/// after `mosquitto_publish` returned it, outside the lock the network thread takes for each
/// acknowledgement (holding it across the call would make every acknowledgement wait for a
/// whole publish). An acknowledgement that comes before its mid is recorded is kept, and the
/// late `register` then finds it.
///
/// `ClientState` keeps one per connection (for `stop`'s flush), `PublishTracking` one for the
/// output connection's displays (what each acknowledgement finishes).
struct PublishAcknowledgements<Waiter> {
    /// What each recorded mid waits for.
    private(set) var waiting: [Int32: Waiter] = [:]
    /// Mids acknowledged before they were recorded.
    private(set) var early: Set<Int32> = []

    /// No recorded publish is waiting.
    var isEmpty: Bool { waiting.isEmpty }

    /// Recorded publishes waiting.
    var count: Int { waiting.count }

    /// Records `mid` with `waiter`; `false` (nothing recorded) when its acknowledgement came first.
    mutating func register(_ mid: Int32, _ waiter: Waiter) -> Bool {
        if early.remove(mid) != nil { return false }
        waiting[mid] = waiter
        return true
    }

    /// The acknowledgement of `mid`: what it waited for, or nil when it is not recorded. An
    /// unknown mid is kept for a later `register` when `mayComeFirst` (a publish that may own
    /// it is still being made).
    mutating func acknowledge(_ mid: Int32, mayComeFirst: Bool = true) -> Waiter? {
        if let waiter = waiting.removeValue(forKey: mid) { return waiter }
        if mayComeFirst { early.insert(mid) }
        return nil
    }

    /// Drops the kept early mids (none can be registered any more).
    mutating func forgetEarly() {
        if !early.isEmpty { early.removeAll(keepingCapacity: true) }
    }
}

extension PublishAcknowledgements: Sendable where Waiter: Sendable {}
