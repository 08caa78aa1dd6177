import Dispatch

/// The one conversion of a `Duration` to the numbers other APIs take (config durations,
/// time limits, intervals); `DurationParser` is the way back from text.
extension Duration {
    /// The duration written compactly, as `bridge.yml` durations are: `250ms`, `30s`, `10m`,
    /// `1.5s`, `2h`, `1d` (the largest unit that divides it; what `DurationParser` reads back).
    var text: String {
        let ms = Double(nanoseconds) / 1e6
        func trim(_ x: Double) -> String {
            x == x.rounded() ? String(Int64(x)) : String(x)
        }
        if ms < 1000 { return "\(trim(ms))ms" }
        let s = ms / 1000
        if s.truncatingRemainder(dividingBy: 86_400) == 0 { return "\(trim(s / 86_400))d" }
        if s.truncatingRemainder(dividingBy: 3600) == 0 { return "\(trim(s / 3600))h" }
        if s.truncatingRemainder(dividingBy: 60) == 0 { return "\(trim(s / 60))m" }
        return "\(trim(s))s"
    }

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
