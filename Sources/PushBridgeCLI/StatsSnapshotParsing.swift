import Foundation
import PushBridge

extension StatsSnapshot {
    /// Reads a stats-topic JSON document (as written by `json()`); `nil` when it is not one.
    ///
    /// The histograms are not on the wire: the result's `latency` and `extensionDuration`
    /// are empty, and the percentiles are the ones the document states.
    package static func parse(_ json: JSONValue) -> StatsSnapshot? {
        guard case .object(let root) = json,
              let version = root["version"]?.stringValue,
              let startedText = root["started_at"]?.stringValue,
              let startedAt = parseTimestamp(startedText),
              let uptime = double(root["uptime_s"]),
              case .bool(let connected)? = root["connected"],
              let totalsValue = root["totals"], var totals = counters(totalsValue)
        else { return nil }
        if let inFlight = int(root["in_flight"]) { totals.inFlight = inFlight }

        var topics: [String: TopicStats] = [:]
        if case .object(let members)? = root["topics"] {
            for (name, value) in members {
                guard let c = counters(value) else { return nil }
                let seen = value["last_seen"]?.stringValue.flatMap(parseTimestamp)
                topics[name] = TopicStats(counters: c, lastSeen: seen)
            }
        }
        var routes: [String: Counters] = [:]
        if case .object(let members)? = root["routes"] {
            for (name, value) in members {
                guard let c = counters(value) else { return nil }
                routes[name] = c
            }
        }
        var filters: [String: Int] = [:]
        var evictions: [String: Int] = [:]
        if case .object(let members)? = root["filters"] {
            for (name, value) in members {
                guard let n = int(value["suppressed"]) else { return nil }
                if n > 0 { filters[name] = n }
                if let e = int(value["evicted"]) { evictions[name] = e }
            }
        }
        var snapshot = StatsSnapshot(version: version, startedAt: startedAt, uptime: uptime, connected: connected,
                                     totals: totals, topics: topics, routes: routes, filters: filters)
        snapshot.filterEvictions = evictions
        if let latency = root["latency_ms"] {
            snapshot.latencyP50Milliseconds = double(latency["p50"]) ?? 0
            snapshot.latencyP99Milliseconds = double(latency["p99"]) ?? 0
        }
        snapshot.outputs = parseOutputs(root["outputs"])
        return snapshot
    }

    /// A counter object: missing counters are 0; a non-number counter makes it invalid.
    private static func counters(_ value: JSONValue) -> Counters? {
        guard case .object(let members) = value else { return nil }
        var c = Counters()
        for (key, v) in members {
            switch key {
            case "rejected_by_reason":
                guard case .object(let reasons) = v else { return nil }
                for (reason, n) in reasons {
                    guard let n = int(n) else { return nil }
                    c.rejectedByReason[reason] = n
                }
            case "attachment_failures":
                guard case .object(let reasons) = v else { return nil }
                for (reason, n) in reasons {
                    guard let n = int(n) else { return nil }
                    c.attachmentFailures[reason] = n
                }
            case "last_seen":
                continue
            default:
                guard let counter = StatsCounter(rawValue: key) else { continue }   // unknown keys are ignored
                guard let n = int(v) else { return nil }
                c[counter] = n
            }
        }
        return c
    }

    /// A counter: an exact integer (`JSONValue.exactInteger`).
    private static func int(_ value: JSONValue?) -> Int? {
        value?.exactInteger.flatMap { Int(exactly: $0) }
    }

    /// A measurement: a finite number (`JSONValue.numberValue`).
    private static func double(_ value: JSONValue?) -> Double? {
        value?.numberValue
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff…]Z` (UTC) into UNIX seconds.
    static func parseTimestamp(_ text: String) -> Double? {
        let u = Array(text.utf8)
        guard u.count >= 20, u.last == UInt8(ascii: "Z"), u[4] == UInt8(ascii: "-"), u[7] == UInt8(ascii: "-"),
              u[10] == UInt8(ascii: "T"), u[13] == UInt8(ascii: ":"), u[16] == UInt8(ascii: ":")
        else { return nil }
        func digits(_ range: Range<Int>) -> Int? {
            var n = 0
            for i in range {
                guard (0x30...0x39).contains(u[i]) else { return nil }
                n = n * 10 + Int(u[i] - 0x30)
            }
            return n
        }
        guard let year = digits(0..<4), let month = digits(5..<7), let day = digits(8..<10),
              let hour = digits(11..<13), let minute = digits(14..<16), let second = digits(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if u.count > 20 {
            guard u[19] == UInt8(ascii: "."), u.count > 21, let f = digits(20..<(u.count - 1)) else { return nil }
            fraction = Double(f) / pow(10, Double(u.count - 21))
        } else if u[19] != UInt8(ascii: "Z") {
            return nil
        }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        return Double(timegm(&parts)) + fraction
    }
}
