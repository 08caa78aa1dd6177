import Foundation
import PushBridge

/// `pushbridge try`: one message, or a file of samples, through the pipeline offline.
enum TryCommand {
    static func run(_ args: Arguments, config: BridgeConfig) -> Int32 {
        let logger = Logger(level: .warning, format: config.monitoring.logFormat)
        let json = args.flags.contains("--json")
        if let samples = args.value("--samples") {
            return runSamples(path: samples, config: config, logger: logger, json: json)
        }
        guard let topic = args.value("-t") else {
            printErr("pushbridge: error: try needs -t TOPIC (or --samples FILE)")
            return 2
        }
        let payload: [UInt8]
        if let m = args.value("-m") {
            payload = Array(m.utf8)
        } else if let f = args.value("-f") {
            guard let data = FileManager.default.contents(atPath: f) else {
                printErr("pushbridge: error: cannot read payload file '\(f)'")
                return 2
            }
            payload = Array(data)
        } else {
            payload = Array(FileHandle.standardInput.readDataToEndOfFile())
        }
        var properties: [(name: String, value: String)] = []
        for p in args.options["-p"] ?? [] {
            guard let eq = p.firstIndex(of: "=") else {
                printErr("pushbridge: error: -p needs NAME=VALUE, got '\(p)'")
                return 2
            }
            properties.append((String(p[..<eq]), String(p[p.index(after: eq)...])))
        }
        let message = InboundMessage(topic: topic, payload: payload, qos: 1, userProperties: properties,
                                     receivedAt: Date().timeIntervalSince1970)
        let decision = TryRunner.run(config: config, message: message, logger: logger)
        printOut(json ? TryRunner.json(decision, message: message).jsonText : TryRunner.text(decision, message: message))
        return 0
    }

    /// Each line `topic<TAB>payload` (blank lines and `#` comments skipped) → a table or JSON lines.
    static func runSamples(path: String, config: BridgeConfig, logger: Logger, json: Bool) -> Int32 {
        guard let data = FileManager.default.contents(atPath: path) else {
            printErr("pushbridge: error: cannot read samples file '\(path)'")
            return 2
        }
        let pipeline = Pipeline(config: config, logger: logger)
        defer { pipeline.shutdown() }
        var rows: [[String]] = [["LINE", "TOPIC", "OUTCOME", "DETAIL"]]
        for (n, line) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let tab = line.firstIndex(of: "\t") else {
                printErr("\(path):\(n + 1): error: expected topic<TAB>payload")
                return 2
            }
            let message = InboundMessage(topic: String(line[..<tab]), payload: Array(line[line.index(after: tab)...].utf8),
                                         qos: 1, receivedAt: Date().timeIntervalSince1970)
            let d = TryRunner.run(pipeline: pipeline, message: message)
            if json {
                var o = TryRunner.json(d, message: message)
                if case .object(var members) = o {
                    members["line"] = .int(Int64(n + 1))
                    o = .object(members)
                }
                printOut(o.jsonText)
            } else {
                let detail: String
                switch d.outcome {
                case .delivered: detail = d.request.map { [$0.content.title, $0.content.body].compactMap { $0 }.joined(separator: " — ") } ?? ""
                case .rejected: detail = d.rejection.map { "\($0.reason.rawValue): \($0.detail)" } ?? ""
                case .suppressed: detail = "by \(d.decidedBy ?? "?")"
                default: detail = d.rule
                }
                rows.append([String(n + 1), message.topic, d.outcome.rawValue, detail])
            }
        }
        if !json { printOut(Table.render(rows)) }
        return 0
    }
}

/// Plain left-aligned columns.
enum Table {
    static func render(_ rows: [[String]]) -> String {
        guard let first = rows.first else { return "" }
        var widths = Array(repeating: 0, count: first.count)
        for r in rows { for (i, c) in r.enumerated() where i < widths.count { widths[i] = max(widths[i], c.count) } }
        return rows.map { r in
            r.enumerated().map { i, c in i == r.count - 1 ? c : c.padding(toLength: widths[i], withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
