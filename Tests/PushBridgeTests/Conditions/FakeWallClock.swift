import Foundation
import Synchronization
@testable import PushBridge

/// A stage clock a test moves by hand: `wall` and `monotonic` read the same seconds.
final class FakeWallClock: Sendable {
    private let seconds: Mutex<Double>

    init(_ start: Double) { seconds = Mutex(start) }

    var now: Double { seconds.withLock { $0 } }

    func set(_ value: Double) { seconds.withLock { $0 = value } }

    func advance(_ by: Double) { seconds.withLock { $0 += by } }

    var stageClock: StageClock {
        StageClock(monotonic: { [self] in .milliseconds(Int64(now * 1000)) }, wall: { [self] in now })
    }
}
