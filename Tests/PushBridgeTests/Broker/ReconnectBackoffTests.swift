import Testing
@testable import PushBridge

@Suite struct ReconnectBackoffTests {
    @Test func doublesFromMinimumUpToMaximum() {
        var b = ReconnectBackoff(minimum: .seconds(1), maximum: .seconds(30))
        let delays = (0..<8).map { _ in b.next() }
        #expect(delays == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16),
                           .seconds(30), .seconds(30), .seconds(30)])
    }

    @Test func resetStartsOverAtMinimum() {
        var b = ReconnectBackoff(minimum: .milliseconds(100), maximum: .seconds(1))
        _ = b.next(); _ = b.next(); _ = b.next()
        b.reset()
        #expect(b.next() == .milliseconds(100))
        #expect(b.next() == .milliseconds(200))
    }

    @Test func maximumBelowMinimumIsRaisedToIt() {
        var b = ReconnectBackoff(minimum: .seconds(5), maximum: .seconds(1))
        #expect(b.maximum == .seconds(5))
        #expect(b.next() == .seconds(5))
        #expect(b.next() == .seconds(5))
    }

    @Test func zeroMinimumNeverSpins() {
        var b = ReconnectBackoff(minimum: .zero, maximum: .zero)
        #expect(b.next() == .milliseconds(10))
        #expect(b.next() == .milliseconds(10))
    }

    @Test func wholeSecondsRoundUpAndClamp() {
        #expect(Duration.seconds(30).wholeSeconds() == 30)
        #expect(Duration.milliseconds(1500).wholeSeconds() == 2)
        #expect(Duration.zero.wholeSeconds() == 0)
        #expect(Duration.seconds(-3).wholeSeconds() == 0)
        #expect(Duration.seconds(86_400 * 365 * 200).wholeSeconds(limit: Int64(UInt32.max)) == Int64(UInt32.max))
        #expect(Duration.milliseconds(250).seconds == 0.25)
    }

    /// The delays of "retrying in …" are written as config durations are.
    @Test func delaysFormatForLogs() {
        #expect((.seconds(2) as Duration).text == "2s")
        #expect((.milliseconds(250) as Duration).text == "250ms")
        #expect((.milliseconds(1500) as Duration).text == "1.5s")
        #expect((.seconds(60) as Duration).text == "1m")
    }
}
