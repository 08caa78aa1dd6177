import Foundation

/// A strict checker for the Prometheus text format 0.0.4, independent of the writer.
///
/// Checks: metric and label name syntax; label value escapes (only `\\`, `\"`, `\n`);
/// numeric values (Go float syntax); every sample's family has a preceding TYPE; a
/// family's samples are contiguous and TYPE/HELP appear once; no duplicate series;
/// counters end in `_total`; histogram buckets ascend in `le`, have non-decreasing
/// counts, end in `+Inf`, and `+Inf` equals `_count`; summaries have `_sum` and `_count`.
struct PrometheusChecker {
    struct Sample {
        var name: String
        var labels: [(String, String)]
        var value: Double
    }

    private(set) var errors: [String] = []
    private(set) var samples: [Sample] = []
    private(set) var types: [String: String] = [:]

    init(_ text: String) {
        var current: String?          // family whose samples are being read
        var finished: Set<String> = []
        var helps: Set<String> = []
        var series: Set<String> = []
        guard text.isEmpty || text.hasSuffix("\n") else { errors.append("text must end with a newline"); return }
        for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().enumerated() {
            let where_ = "line \(n + 1)"
            if line.hasPrefix("# TYPE ") || line.hasPrefix("# HELP ") {
                let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
                guard parts.count >= 3, Self.isMetricName(parts[2]) else { errors.append("\(where_): bad comment"); continue }
                let family = String(parts[2])
                if let c = current, c != family { finished.insert(c) }
                if finished.contains(family) { errors.append("\(where_): family \(family) is not contiguous") }
                current = family
                if parts[1] == "TYPE" {
                    guard parts.count == 4, ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[3]) else {
                        errors.append("\(where_): bad TYPE"); continue
                    }
                    if types[family] != nil { errors.append("\(where_): second TYPE for \(family)") }
                    if samples.contains(where: { Self.family(of: $0.name, types) == family }) {
                        errors.append("\(where_): TYPE after samples of \(family)")
                    }
                    types[family] = String(parts[3])
                } else {
                    if !helps.insert(family).inserted { errors.append("\(where_): second HELP for \(family)") }
                }
                continue
            }
            if line.hasPrefix("#") || line.isEmpty { continue }
            guard let sample = Self.parseSample(line) else { errors.append("\(where_): bad sample: \(line)"); continue }
            guard let family = Self.family(of: sample.name, types) else {
                errors.append("\(where_): \(sample.name) has no preceding TYPE"); continue
            }
            if family != current {
                if let c = current { finished.insert(c) }
                if finished.contains(family) { errors.append("\(where_): family \(family) is not contiguous") }
                current = family
            }
            let key = sample.name + "{" + sample.labels.sorted { $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }.joined(separator: ",") + "}"
            if !series.insert(key).inserted { errors.append("\(where_): duplicate series \(key)") }
            samples.append(sample)
        }
        for (family, type) in types {
            switch type {
            case "counter" where !family.hasSuffix("_total"): errors.append("counter \(family) must end in _total")
            case "histogram": checkHistogram(family)
            case "summary": checkSummary(family)
            default: break
            }
        }
    }

    private mutating func checkHistogram(_ family: String) {
        let buckets = samples.filter { $0.name == family + "_bucket" }
        let groups = Dictionary(grouping: buckets) { s in s.labels.filter { $0.0 != "le" }.map { "\($0.0)=\($0.1)" }.joined(separator: ",") }
        if groups.isEmpty { errors.append("histogram \(family) has no buckets") }
        for (group, bs) in groups {
            let les = bs.map { s in s.labels.first { $0.0 == "le" }.flatMap { Self.parseValue($0.1) } }
            guard les.allSatisfy({ $0 != nil }) else { errors.append("\(family){\(group)}: bucket without valid le"); continue }
            let bounds = les.map { $0! }
            if bounds != bounds.sorted() || Set(bounds).count != bounds.count { errors.append("\(family): le not ascending") }
            if bounds.last != .infinity { errors.append("\(family): last bucket is not +Inf") }
            let counts = bs.map(\.value)
            if counts != counts.sorted() { errors.append("\(family): bucket counts decrease") }
            let count = samples.first { $0.name == family + "_count" && Self.sameGroup($0, group) }
            if count == nil || samples.first(where: { $0.name == family + "_sum" && Self.sameGroup($0, group) }) == nil {
                errors.append("\(family): missing _sum or _count")
            } else if count!.value != counts.last { errors.append("\(family): +Inf bucket \(counts.last!) != _count \(count!.value)") }
        }
    }

    private mutating func checkSummary(_ family: String) {
        if !samples.contains(where: { $0.name == family + "_count" }) || !samples.contains(where: { $0.name == family + "_sum" }) {
            errors.append("summary \(family): missing _sum or _count")
        }
        for s in samples where s.name == family {
            guard let q = s.labels.first(where: { $0.0 == "quantile" }).flatMap({ Self.parseValue($0.1) }), (0...1).contains(q) else {
                errors.append("summary \(family): sample without a valid quantile"); continue
            }
        }
    }

    private static func sameGroup(_ s: Sample, _ group: String) -> Bool {
        s.labels.map { "\($0.0)=\($0.1)" }.joined(separator: ",") == group
    }

    /// The family a sample name belongs to, given the TYPEs seen so far.
    static func family(of name: String, _ types: [String: String]) -> String? {
        if types[name] != nil { return name }
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            if let t = types[base], t == "histogram" || (t == "summary" && suffix != "_bucket") { return base }
        }
        return nil
    }

    static func isMetricName<S: StringProtocol>(_ s: S) -> Bool {
        s.range(of: "^[a-zA-Z_:][a-zA-Z0-9_:]*$", options: .regularExpression) != nil
    }

    static func isLabelName<S: StringProtocol>(_ s: S) -> Bool {
        s.range(of: "^[a-zA-Z_][a-zA-Z0-9_]*$", options: .regularExpression) != nil && !s.hasPrefix("__")
    }

    /// Go's float syntax as Prometheus accepts it.
    static func parseValue(_ s: String) -> Double? {
        switch s {
        case "+Inf", "Inf": return .infinity
        case "-Inf": return -.infinity
        case "NaN": return .nan
        default:
            guard s.range(of: "^[-+]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+)?$", options: .regularExpression) != nil
            else { return nil }
            return Double(s)
        }
    }

    /// `name{l="v",...} value`; `nil` on any syntax error.
    static func parseSample<S: StringProtocol>(_ line: S) -> Sample? {
        let chars = Array(line)
        var i = 0
        while i < chars.count, chars[i] != "{", chars[i] != " " { i += 1 }
        let name = String(chars[0..<i])
        guard isMetricName(name), i < chars.count else { return nil }
        var labels: [(String, String)] = []
        if chars[i] == "{" {
            i += 1
            while i < chars.count, chars[i] != "}" {
                var j = i
                while j < chars.count, chars[j] != "=" { j += 1 }
                let label = String(chars[i..<j])
                guard isLabelName(label), j + 1 < chars.count, chars[j + 1] == "\"" else { return nil }
                i = j + 2
                var value = ""
                while i < chars.count, chars[i] != "\"" {
                    if chars[i] == "\\" {
                        guard i + 1 < chars.count else { return nil }
                        switch chars[i + 1] {
                        case "\\": value.append("\\")
                        case "\"": value.append("\"")
                        case "n": value.append("\n")
                        default: return nil
                        }
                        i += 2
                    } else {
                        if chars[i] == "\n" { return nil }
                        value.append(chars[i])
                        i += 1
                    }
                }
                guard i < chars.count else { return nil }
                i += 1                                   // closing quote
                if labels.contains(where: { $0.0 == label }) { return nil }
                labels.append((label, value))
                if i < chars.count, chars[i] == "," { i += 1 } else if i < chars.count, chars[i] != "}" { return nil }
            }
            guard i < chars.count else { return nil }
            i += 1                                       // closing brace
        }
        guard i < chars.count, chars[i] == " " else { return nil }
        let rest = String(chars[(i + 1)...]).split(separator: " ", omittingEmptySubsequences: false)
        guard (1...2).contains(rest.count), let value = parseValue(String(rest[0])) else { return nil }
        if rest.count == 2, Int64(rest[1]) == nil { return nil }   // optional timestamp
        return Sample(name: name, labels: labels, value: value)
    }

    /// The value of the sample `name` whose labels include `labels`.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { s in
            s.name == name && labels.allSatisfy { l in s.labels.contains { $0.0 == l.key && $0.1 == l.value } }
        }?.value
    }
}
