import Foundation
import PushBridge
import PushBridgeCLI

/// `pushbridge try`: one message, or a file of samples, through the pipeline offline.
enum TryCommand {
    static func run(_ args: Arguments, config: BridgeConfig, path: String) -> Int32 {
        let logger = BridgeLogger(level: .warning, format: config.monitoring.logFormat)
        let json = args.flags.contains("--json")
        if let samples = args.value("--samples") {
            return runSamples(samplesPath: samples, configPath: path, logger: logger, json: json)
        }
        guard let topic = args.value("-t") else {
            return fail(2, "try needs -t TOPIC (or --samples FILE)")
        }
        let payload: [UInt8]
        if let m = args.value("-m") {
            payload = Array(m.utf8)
        } else if let f = args.value("-f") {
            guard let handle = FileHandle(forReadingAtPath: f), let data = try? handle.readToEnd() ?? Data() else {
                return fail(2, "cannot read payload file '\(f)'")
            }
            payload = Array(data)
        } else {
            payload = Array(FileHandle.standardInput.readDataToEndOfFile())
        }
        var properties: [(name: String, value: String)] = []
        for p in args.options["-p"] ?? [] {
            guard let eq = p.firstIndex(of: "=") else {
                return fail(2, "-p needs NAME=VALUE, got '\(p)'")
            }
            properties.append((String(p[..<eq]), String(p[p.index(after: eq)...])))
        }
        var now = Date().timeIntervalSince1970
        var clock = StageClock.system
        if let at = args.value("--at") {
            guard let t = SampleTime.unixSeconds(at, day: Date()) else {
                return fail(2, "--at needs HH:MM or YYYY-MM-DDTHH:MM (local time), got '\(at)'")
            }
            now = t
            clock = StageClock(monotonic: { .milliseconds(Int64((t * 1000).rounded())) }, wall: { t })
        }
        let message = InboundMessage(topic: topic, payload: payload, qos: 1, retain: args.flags.contains("--retain"),
                                     userProperties: properties, receivedAt: now)
        if let partition = config.partition.flatMap(Partition.init), !partition.handles(topic: topic) {
            printErr("note: with partition index=\(partition.index) count=\(partition.count) this bridge skips '\(topic)' "
                     + "(partition_skipped); index \(Partition.owner(of: topic, count: partition.count)) handles it, as below")
        }
        var supplied: [String: (bytes: [UInt8], file: String)] = [:]
        for a in args.options["--attach"] ?? [] {
            switch TrySamples.readAttachment(a) {
            case .success(let (name, bytes)): supplied[name] = (bytes, String(a[a.index(after: a.firstIndex(of: "=")!)...]))
            case .failure(let e): return fail(2, e.description)
            }
        }
        let attachments: AttachmentService?
        do {
            attachments = try TrySamples.offlineAttachments(for: config)
        } catch {
            return fail(2, "cannot make a temporary attachment store: \(error)")
        }
        attachments?.supplied.withLock { $0 = supplied }
        // No broker: nothing is kept, every `lookup.*` is null (a samples file can feed them).
        let pipeline = Pipeline(config: config, logger: logger, clock: clock, attachments: attachments, lookups: LookupStore())
        defer {
            pipeline.shutdown()
            attachments?.close()
        }
        // A route with `continue: true` hands the message on: each route's decision in turn
        // (JSON: one object per line), the last being the message's outcome.
        let decisions = TryRunner.chain(pipeline: pipeline, message: message, now: now)
        for (n, decision) in decisions.enumerated() {
            if json {
                printOut(TryRunner.json(decision, message: message).jsonText)
            } else {
                if n > 0 { printOut("\n(route '\(decisions[n - 1].route ?? "?")' has continue: true: the next matching route decides it too)") }
                printOut(TryRunner.text(decision, message: message))
            }
        }
        return 0
    }

    /// Each sample through one pipeline → a table, or JSON lines.
    static func runSamples(samplesPath: String, configPath: String, logger: BridgeLogger, json: Bool) -> Int32 {
        guard let data = FileManager.default.contents(atPath: samplesPath) else {
            return fail(2, "cannot read samples file '\(samplesPath)'")
        }
        let samples: [TrySample]
        do {
            samples = try TrySamples.parse(String(decoding: data, as: UTF8.self), path: samplesPath)
        } catch {
            printErr(error.description)
            return 2
        }
        let runner = TrySamples.Runner(configPath: configPath, baseEnvironment: ProcessInfo.processInfo.environment,
                                       logger: logger)
        var rows: [[String]] = [["LINE", "TOPIC", "OUTCOME", "DETAIL"]]
        for sample in samples {
            for (d, message, at) in runner.conditionsDue(before: sample) {
                if json {
                    printJSON(d, message, extra: ["at": .string(Timestamp.iso8601(at))])
                } else {
                    rows.append(["@" + Timestamp.iso8601(at), message.topic, d.outcome.rawValue, conditionDetail(d)])
                }
            }
            switch runner.decide(sample) {
            case .failure(let errors):
                for e in errors.errors { printErr(e.description) }
                printErr("\(samplesPath):\(sample.line): error: \(configPath) does not load with \(sample.environment.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " "))")
                return 2
            case .success(let (d, message, handedOn)):
                for h in handedOn {
                    if json {
                        printJSON(h, message, extra: ["line": .int(Int64(sample.line))])
                    } else {
                        rows.append([String(sample.line), message.topic + " (\(h.route ?? "?"), continue)", h.outcome.rawValue,
                                     h.conditionEvent != nil ? conditionDetail(h) : h.rule])
                    }
                }
                if json {
                    var extra: JSONObject = ["line": .int(Int64(sample.line))]
                    if sample.retain { extra["retain"] = .bool(true) }
                    printJSON(d, message, extra: extra)
                } else {
                    var detail: String
                    switch d.outcome {
                    case .delivered: detail = d.request.map { [$0.content.title, $0.content.body].compactMap { $0 }.joined(separator: " — ") } ?? ""
                    case .rejected: detail = d.rejection.map { "\($0.reason.rawValue): \($0.detail)" } ?? ""
                    case .suppressed: detail = "by \(d.decidedBy ?? "?")"
                    default: detail = d.rule
                    }
                    if d.conditionEvent != nil { detail = conditionDetail(d) }
                    rows.append([String(sample.line), message.topic + (sample.retain ? " (retained)" : ""), d.outcome.rawValue, detail])
                }
            }
        }
        for (d, message, at) in runner.conditionsDueAfterLast() {
            if json {
                printJSON(d, message, extra: ["at": .string(Timestamp.iso8601(at))])
            } else {
                rows.append(["@" + Timestamp.iso8601(at), message.topic, d.outcome.rawValue, conditionDetail(d)])
            }
        }
        if !json { printOut(Table.render(rows)) }
        return 0
    }
}

/// `condition repeated #2 (alert …): Title — body`, or the rule when nothing was delivered.
func conditionDetail(_ d: Decision) -> String {
    guard let event = d.conditionEvent else {
        // An announcement stands for several conditions: no one condition's event.
        guard d.outcome == .delivered, let request = d.request, d.rule.hasPrefix("condition announcement") else { return d.rule }
        return "condition announcement: " + [request.content.title, request.content.body].compactMap { $0 }.joined(separator: " — ")
    }
    var head = "condition \(event.kind.rawValue)"
    if event.kind == .repeated { head += " #\(event.record.repeats)" }
    if event.kind == .escalated { head += " step \(event.record.step)" }
    head += " (alert \(event.record.alertID.prefix(8)))"
    switch d.outcome {
    case .delivered:
        return head + ": " + (d.request.map { [$0.content.title, $0.content.body].compactMap { $0 }.joined(separator: " — ") } ?? "")
    case .suppressed: return head + ": held back by \(d.decidedBy ?? "?")"
    default: return head + (d.withdrawal != nil ? ": withdraw published" : "")
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

/// Prints `decision`'s JSON line (as `try --json` writes it) with `extra`'s members added.
private func printJSON(_ decision: Decision, _ message: InboundMessage, extra: JSONObject) {
    var o = TryRunner.json(decision, message: message)
    if case .object(var members) = o {
        for (key, value) in extra { members[key] = value }
        o = .object(members)
    }
    printOut(o.jsonText)
}
