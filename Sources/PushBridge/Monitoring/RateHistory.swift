/// The last minutes of the totals, one sample a second, for the dashboard's rate chart:
/// a page opened now shows what happened before it was opened (`/api/history`). Bounded:
/// the newest `capacity` samples.
struct RateHistory: Sendable {
    /// Samples kept (5 minutes at one a second).
    static let capacity = 301
    private var samples: [(at: Double, received: Int, delivered: Int, suppressed: Int, rejected: Int)] = []
    private var start = 0

    var count: Int { samples.count }

    mutating func append(at: Double, _ c: Counters) {
        let s = (at, c.received, c.delivered, c.suppressed, c.rejected)
        if samples.count < Self.capacity {
            samples.append(s)
        } else {
            samples[start] = s
            start = (start + 1) % Self.capacity
        }
    }

    /// `[[unix_ms, received, delivered, suppressed, rejected], …]`, oldest first.
    func json() -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for i in 0..<samples.count {
            let s = samples[(start + i) % samples.count]
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out += Array("[\(Int64((s.at * 1000).rounded())),\(s.received),\(s.delivered),\(s.suppressed),\(s.rejected)]".utf8)
        }
        out.append(UInt8(ascii: "]"))
        return out
    }
}
