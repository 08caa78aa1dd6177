import Testing
@testable import PushBridge

@Suite("Histogram")
struct HistogramTests {
    @Test func bucketsAreUpperInclusive() {
        var h = Histogram(bounds: [1, 2, 5])
        for v in [0.5, 1, 1.5, 2, 4.9, 5, 5.1, 100, -3] { h.observe(v) }
        #expect(h.counts == [3, 2, 2, 2])
        #expect(h.cumulativeCounts == [3, 5, 7, 9])
        #expect(h.count == 9)
        #expect(h.sum == 0.5 + 1 + 1.5 + 2 + 4.9 + 5 + 5.1 + 100 - 3)
    }

    @Test func nanIsIgnored() {
        var h = Histogram(bounds: [1])
        h.observe(.nan)
        #expect(h.count == 0 && h.quantile(0.5) == nil)
    }

    @Test func quantilesInterpolateInsideTheBucket() {
        var h = Histogram(bounds: [10, 20])
        for _ in 0..<10 { h.observe(5) }
        for _ in 0..<10 { h.observe(15) }
        #expect(h.quantile(0.5) == 10)
        #expect(h.quantile(0.25) == 5)
        #expect(h.quantile(0.75) == 15)
        #expect(h.quantile(1) == 15)            // bucket estimate 20, clamped to the maximum
        h.observe(1000)
        #expect(h.quantile(1) == 20)           // +Inf bucket reports the last bound
        #expect(h.range == 5...1000)
    }

    @Test func quantilesStayInsideTheObservedRange() {
        var h = Histogram(bounds: [10, 20])
        h.observe(12)
        h.observe(13)
        #expect(h.quantile(0) == 12)            // bucket estimate 10, clamped up to the minimum
        #expect(h.quantile(0.99) == 13)         // bucket estimate 19.9, clamped down to the maximum
        let rebuilt = Histogram(bounds: [10, 20], counts: [0, 2, 0], sum: 25)
        #expect(abs((rebuilt?.quantile(0.99) ?? 0) - 19.9) < 1e-9) // no range known: bucket estimate
    }

    @Test func latencyBucketsAreLogSpacedFrom50MicrosecondsTo60Seconds() {
        let b = Histogram.latency().bounds
        #expect(b.first == 50e-6 && b.last == 60)
        for (lo, hi) in zip(b, b.dropFirst()) {
            #expect(hi / lo <= 1.26 && hi / lo > 1.0)
        }
    }

    @Test(arguments: [0.0001, 0.0007, 0.003, 0.042, 0.5, 7.5, 33.0])
    func latencyQuantileErrorIsBounded(value: Double) {
        var h = Histogram.latency()
        for _ in 0..<100 { h.observe(value) }
        let p50 = h.quantile(0.5)!
        #expect(abs(p50 - value) / value < 0.26)
    }

    @Test func rebuildChecksShape() {
        #expect(Histogram(bounds: [1, 2], counts: [1, 2], sum: 3) == nil)
        let h = Histogram(bounds: [1, 2], counts: [1, 2, 3], sum: 9)
        #expect(h?.count == 6 && h?.cumulativeCounts == [1, 3, 6])
    }
}
