import Dispatch

/// The one conversion of a `Duration` to the numbers other APIs take (config durations,
/// time limits, intervals); `DurationParser` is the way back from text.
extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) / 1e18
    }

    /// Whole nanoseconds (toward zero), saturating at the bounds of `Int64`.
    var nanoseconds: Int64 {
        let (s, attoseconds) = components
        let (whole, overflow) = s.multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, carry) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflow || carry ? (s < 0 ? .min : .max) : sum
    }

    /// This duration as a Dispatch interval (negatives are zero, beyond `Int64` nanoseconds never).
    var dispatchInterval: DispatchTimeInterval {
        let n = nanoseconds
        return n < 0 ? .nanoseconds(0) : n == .max ? .never : .nanoseconds(Int(n))
    }

    /// Whole seconds rounded up (so 1.5 s is 2), clamped to `0...limit`.
    func wholeSeconds(limit: Int64 = Int64(Int32.max)) -> Int64 {
        let (s, attoseconds) = components
        let rounded = attoseconds > 0 ? s + 1 : s
        return Swift.min(Swift.max(rounded, 0), limit)
    }
}
