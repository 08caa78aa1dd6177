import Foundation
import Dispatch

/// The clocks the extension stage reads, injectable for tests.
///
/// `monotonic` (time since an arbitrary origin) measures durations and the windows of
/// `dedupe` and `rate_limit`; `wall` (UNIX seconds) places `quiet_hours`. Time limits are
/// armed on Dispatch timers, which run on the system's monotonic clock.
package struct StageClock: Sendable {
    /// Time since an arbitrary, fixed origin; never goes backwards.
    package var monotonic: @Sendable () -> Duration
    /// Wall-clock time, UNIX seconds.
    package var wall: @Sendable () -> Double

    package init(monotonic: @escaping @Sendable () -> Duration, wall: @escaping @Sendable () -> Double) {
        self.monotonic = monotonic
        self.wall = wall
    }

    /// The system clocks: `CLOCK_BOOTTIME` (what `ContinuousClock` reads on Linux: it goes on
    /// while the machine sleeps) and `Date`. The monotonic origin is one per process, so
    /// instants taken by the stages of successive pipelines (a reload) compare. Read with
    /// `clock_gettime` as whole nanoseconds: `ContinuousClock.now - origin` cost ~180
    /// instructions, twice per message (the stage's duration).
    package static var system: StageClock {
        let origin = processOrigin
        return StageClock(monotonic: { .nanoseconds(bootTimeNanoseconds() &- origin) },
                          wall: { Date().timeIntervalSince1970 })
    }

    private static let processOrigin = bootTimeNanoseconds()

    /// `CLOCK_BOOTTIME` in nanoseconds.
    static func bootTimeNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec)
    }
}
