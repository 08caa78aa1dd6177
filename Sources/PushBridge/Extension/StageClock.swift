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

    /// The system clocks: `ContinuousClock` and `Date`. The monotonic origin is one per
    /// process, so instants taken by the stages of successive pipelines (a reload) compare.
    package static var system: StageClock {
        let origin = processOrigin
        return StageClock(monotonic: { ContinuousClock.now - origin },
                          wall: { Date().timeIntervalSince1970 })
    }

    private static let processOrigin = ContinuousClock.now
}
