import Foundation
import Synchronization
import PushBridge

/// `pushbridge try`: one message through mapping and the extension stage, offline.
package enum TryRunner {
    /// Runs `message` through an existing pipeline (several samples share one) and waits.
    package static func run(pipeline: Pipeline, message: InboundMessage,
                           now: Double = Date().timeIntervalSince1970) -> Decision {
        let box = DecisionBox()
        let id = message.property("apns-id")?.lowercased() ?? NotificationRequest.newID()
        pipeline.process(message, id: id, now: now) { decision in box.set(decision) }
        return box.wait()
    }

    /// The decisions of every route that decides `message` (`continue: true` hands it on), in
    /// order; the last is the message's outcome. One decision (`unrouted`) when no route matches;
    /// `not_displayed` (kept for lookups) when only a route's `lookup:` reads the topic.
    package static func chain(pipeline: Pipeline, message: InboundMessage,
                             now: Double = Date().timeIntervalSince1970) -> [Decision] {
        let routes = pipeline.routeChain(message.topic)
        // As the bridge does: a topic a route's `lookup:` reads is kept for it, and decided as
        // a message only when a route matches it too.
        if pipeline.keepForLookups(message), routes.isEmpty {
            return [Decision(outcome: .notDisplayed, route: nil,
                             rule: "kept for lookups: a route's lookup: reads this topic, and no route matches it")]
        }
        guard routes.count > 1 else { return [run(pipeline: pipeline, message: message, now: now)] }
        let id = message.property("apns-id")?.lowercased() ?? NotificationRequest.newID()
        // A condition route that nothing changed hands on without a decision of its own.
        return routes.enumerated().compactMap { n, index in
            let d = wait(pipeline.decide(message, id: n == routes.count - 1 ? id : NotificationRequest.newID(), now: now, at: index))
            return n < routes.count - 1 && d.passedOver ? nil : d
        }
    }

    /// Waits for the decision of a pipeline step (a condition's notification).
    static func wait(_ step: Pipeline.Step) -> Decision {
        switch step {
        case .decided(let d): return d
        case .waiting(let waiting):
            let box = DecisionBox()
            waiting.start { decision in box.set(decision) }
            return box.wait()
        }
    }

    /// The decision as one JSON object, `try --json` (docs/formats.md, "pushbridge try --json").
    package static func json(_ d: Decision, message: InboundMessage) -> JSONValue {
        var o: JSONObject = [
            "outcome": .string(d.outcome.rawValue),
            "rule": .string(d.rule),
            "source_topic": .string(message.topic),
            "filters": .array(d.filterTrace.map { .object(["name": .string($0.name), "verdict": .string($0.verdict)]) }),
            "modified": .bool(d.modified),
            "timeout": .bool(d.timedOut),
            "extension_failed": .bool(d.extensionFailed),
        ]
        if let r = d.route { o["route"] = .string(r) }
        if let r = d.rejection {
            o["reason"] = .string(r.reason.rawValue)
            o["detail"] = .string(r.detail)
        }
        if let by = d.decidedBy { o["decided_by"] = .string(by) }
        if let r = d.request {
            var headers: JSONObject = [:]
            for h in r.apnsHeaders { headers[h.name] = .string(h.value) }
            o["request"] = .object(["headers": .object(headers), "body": r.apnsBody,
                                    "identifier": .string(r.identifier)])
        }
        if d.outcome == .delivered, let m = d.publish.first {
            var display: JSONObject = ["topic": .string(m.topic), "qos": .int(Int64(m.qos)),
                                                "retain": .bool(m.retain)]
            display["payload"] = (try? JSONValue.parse(m.payload)).flatMap { v -> JSONValue? in
                if case .object = v { return v } else { return nil }
            } ?? .string(m.payloadText)
            if !m.userProperties.isEmpty {
                display["properties"] = .array(m.userProperties.map { .array([.string($0.name), .string($0.value)]) })
            }
            o["display"] = .object(display)
        }
        if !d.attachments.isEmpty { o["attachments"] = .array(d.attachments.map(\.jsonValue)) }
        if d.outcome == .rejected, let m = d.publish.first {
            o["dead_letter"] = .object(["topic": .string(m.topic), "payload": .string(m.payloadText)])
        }
        return .object(o)
    }

    /// The decision as readable lines.
    package static func text(_ d: Decision, message: InboundMessage) -> String {
        var lines: [String] = []
        func row(_ k: String, _ v: String) {
            let pad = String(repeating: " ", count: max(1, 10 - k.count))
            for (i, part) in v.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                lines.append((i == 0 ? k + pad : String(repeating: " ", count: 10)) + part)
            }
        }
        row("topic", message.topic)
        row("route", d.route ?? "(none)")
        if let r = d.request {
            row("request", r.apnsHeaders.map { "\($0.name): \($0.value)" }.joined(separator: "\n"))
            row("body", r.apnsBody.jsonText)
        }
        if !d.attachments.isEmpty {
            row("attach", d.attachments.map(\.line).joined(separator: "\n"))
        }
        if !d.filterTrace.isEmpty {
            row("filters", d.filterTrace.map { "\($0.name): \($0.verdict)" }.joined(separator: "\n"))
        }
        row("rule", d.rule)
        var outcome = d.outcome.rawValue
        if let r = d.rejection { outcome += " (\(r.reason.rawValue): \(r.detail))" }
        if let by = d.decidedBy { outcome += " by \(by)" }
        if d.modified { outcome += ", modified" }
        if d.timedOut { outcome += ", extension timed out" }
        if d.extensionFailed { outcome += ", extension failed" }
        row("outcome", outcome)
        if let m = d.publish.first {
            row(d.outcome == .delivered ? "display" : "dead letter", m.topic)
            row("", m.payloadText)
        }
        return lines.joined(separator: "\n")
    }
}

/// A decision handed from the pipeline's completion (any thread) to the caller waiting for it.
private final class DecisionBox: Sendable {
    private let value = Mutex<Decision?>(nil)
    private let arrived = WaitGate()

    func set(_ d: Decision) {
        value.withLock { $0 = d }
        arrived.notify()
    }

    /// The decision, once it is there. The pipeline always completes: the extension stage's
    /// time limit and grace bound every step, so the day here is only a backstop.
    func wait() -> Decision {
        _ = arrived.wait(until: .now + .seconds(86_400)) { value.withLock { $0 != nil } }
        return value.withLock { $0 }!
    }
}
