import Dispatch

extension DispatchTime {
    /// `now()` plus `duration` (a negative duration is now): the deadline for a
    /// `DispatchSemaphore.wait(timeout:)` that waits for an event at most that long.
    public static func after(_ duration: Duration) -> DispatchTime {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !nanoseconds.overflow else { return seconds > 0 ? .distantFuture : .now() }
        return .now() + .nanoseconds(Int(max(0, nanoseconds.partialValue + attoseconds / 1_000_000_000)))
    }
}
