import Foundation

/// A fixed-bucket histogram with Prometheus semantics: bucket `i` counts values `<= bounds[i]`
/// (and above the previous bound); one more bucket holds values above the last bound (`+Inf`).
///
/// `observe` is O(log buckets) and never allocates. Quantiles interpolate linearly inside
/// the bucket that holds the rank, as Prometheus' `histogram_quantile` does.
package struct Histogram: Sendable, Equatable {
    /// Upper bounds (`le`), strictly ascending, finite.
    let bounds: [Double]
    /// Per-bucket counts (not cumulative); `bounds.count + 1` entries, the last for `+Inf`.
    package private(set) var counts: [Int]
    /// Sum of the observed values.
    private(set) var sum: Double = 0
    /// Number of observed values.
    package private(set) var count: Int = 0
    /// Smallest and largest observed values (`nil` when empty or rebuilt from parts);
    /// quantile estimates are clamped to them.
    package private(set) var range: ClosedRange<Double>?

    /// An empty histogram with the given ascending upper bounds.
    init(bounds: [Double]) {
        precondition(zip(bounds, bounds.dropFirst()).allSatisfy { $0 < $1 }, "bounds must ascend")
        self.bounds = bounds
        self.counts = Array(repeating: 0, count: bounds.count + 1)
    }

    /// Rebuilds a histogram from its parts (`counts.count` must be `bounds.count + 1`).
    init?(bounds: [Double], counts: [Int], sum: Double) {
        guard counts.count == bounds.count + 1 else { return nil }
        self.init(bounds: bounds)
        self.counts = counts
        self.sum = sum
        self.count = counts.reduce(0, +)
    }

    /// Log-spaced bounds from `lower` up to `upper` (both included), `perDecade` per factor of ten.
    static func logSpaced(from lower: Double, to upper: Double, perDecade: Int) -> Histogram {
        var bounds: [Double] = []
        var k = 0
        while true {
            let b = lower * pow(10, Double(k) / Double(perDecade))
            if b >= upper * (1 - 1e-9) { break }
            bounds.append(b)
            k += 1
        }
        bounds.append(upper)
        return Histogram(bounds: bounds)
    }

    /// End-to-end latency: 50 µs to 60 s, 10 buckets per decade (each ≤ 26 % wide).
    package static func latency() -> Histogram { logSpaced(from: 50e-6, to: 60, perDecade: 10) }

    /// Extension-stage duration buckets (seconds), Prometheus-style, up to Apple's 30 s budget and beyond.
    package static func extensionDuration() -> Histogram {
        Histogram(bounds: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60])
    }

    /// Records one value; NaN is ignored, negatives land in the first bucket.
    mutating func observe(_ value: Double) {
        guard !value.isNaN else { return }
        var lo = 0, hi = bounds.count
        while lo < hi {                         // first bound >= value
            let mid = (lo + hi) / 2
            if bounds[mid] < value { lo = mid + 1 } else { hi = mid }
        }
        counts[lo] += 1
        count += 1
        sum += value
        if let r = range {
            if value < r.lowerBound { range = value...r.upperBound } else if value > r.upperBound { range = r.lowerBound...value }
        } else {
            range = value...value
        }
    }

    /// Cumulative counts per bound, then the `+Inf` total (which equals `count`).
    var cumulativeCounts: [Int] {
        var running = 0
        return counts.map { running += $0; return running }
    }

    /// The estimated `q`-quantile (0...1), or `nil` when empty; clamped to the observed
    /// range when known. Values in the `+Inf` bucket report the last bound (a lower limit
    /// of the truth) unless the observed maximum says more.
    func quantile(_ q: Double) -> Double? {
        guard let estimate = bucketQuantile(q) else { return nil }
        guard let range else { return estimate }
        return min(max(estimate, range.lowerBound), range.upperBound)
    }

    /// The quantile from the buckets alone (Prometheus' `histogram_quantile`).
    private func bucketQuantile(_ q: Double) -> Double? {
        guard count > 0 else { return nil }
        let rank = max(min(q, 1), 0) * Double(count)
        var below = 0
        for (i, n) in counts.enumerated() where n > 0 {
            if Double(below + n) >= rank {
                guard i < bounds.count else { return bounds.last ?? 0 }
                let lower = i == 0 ? 0 : bounds[i - 1]
                let fraction = max(0, rank - Double(below)) / Double(n)
                return lower + (bounds[i] - lower) * fraction
            }
            below += n
        }
        return bounds.last ?? 0
    }

    /// A copy with its own storage (so later `observe` calls on either never copy).
    func detached() -> Histogram {
        var copy = Histogram(bounds: bounds)
        copy.counts = counts.withUnsafeBufferPointer { Array($0) }
        copy.sum = sum
        copy.count = count
        copy.range = range
        return copy
    }
}
