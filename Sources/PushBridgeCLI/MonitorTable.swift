import PushBridge
/// The `pushbridge monitor` view: a header line, then one row per topic (pure text).
///
/// ```
/// pushbridge 1.0.0  connected  up 1h02m  in flight 0  received 10  delivered 6  suppressed 3  rejected 0
/// TOPIC                RECEIVED  DELIVERED  SUPPRESSED  REJECTED  RATE/S  LAST SEEN
/// home/front/doorbell         4          3           1         0     0.4  3s ago
/// ```
/// Topics are sorted by `received`, most first (ties by name). `RATE/S` is received
/// messages per second since `previous` (`-` without a usable previous snapshot, e.g. one
/// from another process run). Every line is cut to `width` columns; long topics are
/// elided in the middle with `…` first.
package struct MonitorTable {
    private static let headers = ["TOPIC", "RECEIVED", "DELIVERED", "SUPPRESSED", "REJECTED", "RATE/S", "LAST SEEN"]
    private static let gap = "  "

    /// The whole view as lines joined by `\n` (no trailing newline).
    package static func render(current: StatsSnapshot, previous: StatsSnapshot?, width: Int, now: Double) -> String {
        lines(current: current, previous: previous, width: width, now: now).joined(separator: "\n")
    }

    /// The view's lines, each at most `width` characters.
    static func lines(current: StatsSnapshot, previous: StatsSnapshot?, width: Int, now: Double) -> [String] {
        let t = current.totals
        let header = "pushbridge \(current.version)  \(current.connected ? "connected" : "disconnected")"
            + "  up \(duration(current.uptime))  in flight \(current.inFlight)  received \(t.received)"
            + "  delivered \(t.delivered)  suppressed \(t.suppressed)  rejected \(t.rejected)"
        let topics = current.topics.sorted {
            $0.value.counters.received != $1.value.counters.received
                ? $0.value.counters.received > $1.value.counters.received : $0.key < $1.key
        }
        let interval = previous.map { current.takenAt - $0.takenAt } ?? 0
        let sameProcess = previous.map { abs($0.startedAt - current.startedAt) < 0.001 } ?? false
        let rows: [[String]] = topics.map { name, stats in
            let c = stats.counters
            var rate = "-"
            if let previous, sameProcess, interval > 0 {
                let before = previous.topics[name]?.counters.received ?? 0
                if c.received >= before { rate = rateText(Double(c.received - before) / interval) }
            }
            let seen = stats.lastSeen.map { ago(now - $0) } ?? "-"
            return [name, String(c.received), String(c.delivered), String(c.suppressed), String(c.rejected), rate, seen]
        }
        // Column widths: numbers and LAST SEEN fit their content; TOPIC takes what is left.
        var widths = headers.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        let fixed = widths.dropFirst().reduce(0, +) + gap.count * (headers.count - 1)
        widths[0] = max(5, min(widths[0], width - fixed))

        func format(_ cells: [String]) -> String {
            var line = ""
            for (i, cell) in cells.enumerated() {
                if i > 0 { line += gap }
                switch i {
                case 0: line += pad(elide(cell, to: widths[0]), widths[0], right: false)
                case headers.count - 1: line += cell
                default: line += pad(cell, widths[i], right: true)
                }
            }
            return line
        }
        var out = [header, format(headers)]
        out += rows.map(format)
        return out.map { cut($0, to: width) }
    }

    /// `s` shortened to `width` characters by replacing its middle with `…`.
    static func elide(_ s: String, to width: Int) -> String {
        guard s.count > width else { return s }
        guard width > 1 else { return String(s.prefix(max(0, width))) }
        let keep = width - 1
        let head = (keep + 1) / 2
        return String(s.prefix(head)) + "…" + String(s.suffix(keep - head))
    }

    /// `3s ago`, `5m ago`, `2h ago`, `4d ago` (`now` for less than a second or a clock skew).
    static func ago(_ seconds: Double) -> String {
        guard seconds >= 1 else { return "now" }
        let s = Int(seconds)
        if s < 60 { return "\(s)s ago" }
        if s < 3600 { return "\(s / 60)m ago" }
        if s < 86_400 { return "\(s / 3600)h ago" }
        return "\(s / 86_400)d ago"
    }

    /// `42s`, `5m03s`, `1h02m`, `3d04h`.
    static func duration(_ seconds: Double) -> String {
        let s = max(0, Int(seconds))
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m\(two(s % 60))s" }
        if s < 86_400 { return "\(s / 3600)h\(two(s % 3600 / 60))m" }
        return "\(s / 86_400)d\(two(s % 86_400 / 3600))h"
    }

    /// A rate with one decimal (`0.4`, `12.0`), no decimals from 1000 up.
    static func rateText(_ r: Double) -> String {
        if r >= 1000 { return String(Int(r.rounded())) }
        let tenths = Int((r * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    private static func pad(_ s: String, _ width: Int, right: Bool) -> String {
        let fill = String(repeating: " ", count: max(0, width - s.count))
        return right ? fill + s : s + fill
    }

    private static func cut(_ s: String, to width: Int) -> String {
        s.count > width ? String(s.prefix(max(0, width))) : s
    }
}
