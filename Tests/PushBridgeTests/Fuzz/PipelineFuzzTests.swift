import Foundation
import Synchronization
import Testing
@testable import PushBridge

/// Random messages through the whole `Pipeline.process` for every input mode.
///
/// Topics, payloads and user properties are random (odd bytes, empty names, huge values,
/// garbage `apns-*` headers). Each message must get exactly one decision, synchronously
/// (the config has filters only), and the decision must be internally consistent.
@Suite("Fuzz: pipeline")
struct PipelineFuzzTests {
    /// Routes for every input mode, every content field as a template over the payload,
    /// and one filter of each kind.
    static let yaml = """
        entitlements: [com.apple.developer.usernotifications.filtering]
        routes:
          - name: json
            topic: j/#
            input: json
            collapse_id: "{{ payload.c }}"
            expiration: "{{ payload.exp }}"
            user_info: "{{ payload.info }}"
            alert:
              title: "{{ payload.t }}"
              subtitle: "{{ levels[1] }}{{ properties.x }}"
              body: "{{ payload.who | default(raw) | truncate(50) }}"
              sound: "{{ payload.s }}"
              badge: "{{ payload.badge }}"
              thread_id: "{{ payload | json | truncate(20) }}"
              category: "{{ payload.c | upper }}"
              interruption_level: "{{ payload.level }}"
              relevance_score: "{{ payload.score }}"
              target_content_id: "{{ payload.n * 2 }}"
              filter_criteria: "{{ payload.n | round(2) }}"
          - name: text
            topic: t/#
            input: text
            expiration: 1h
            alert: {title: "{{ topic }}", body: "{{ payload }}"}
          - name: apns
            topic: a/#
            input: apns
          - name: background
            topic: b/#
            push_type: background
            alert: {body: "{{ raw }}"}
          - name: legacy
            topic: n/#
            input: text
            push_type: none
            mutable_content: false
            alert: {body: "{{ payload }}"}
          - name: wild
            topic: w/+/+/#
            input: json
            alert: {body: "{{ levels[-1] }} {{ payload.x.y[3] }}"}
        extension:
          filters:
            - {name: drop, suppress: 'payload.drop == true || raw =~ "^DROP"'}
            - {name: rewrite, when: 'payload.n > 3', set: {title: "{{ payload.n / 0 }}", badge: "{{ payload.n }}", body: "n={{ payload.n }}"}}
            - {name: dedupe, dedupe: {key: "{{ raw | truncate(8) }}", window: 1s}}
            - {name: rate, rate_limit: {key: "{{ topic }}", max: 5, window: 1m}}
            - {name: quiet, quiet_hours: {from: "22:00", to: "07:00", timezone: UTC, unless: 'payload.urgent'}}
        dead_letter:
          topic: "dead/{{ route }}/{{ topic }}"

        """

    static func pipelines() throws -> [Pipeline] {
        var out: [Pipeline] = []
        for (format, protocolVersion) in [("json", "5"), ("apns", "5"), ("text", "3.1.1")] {
            let text = yaml + "display: {topic: \"display/{{ topic }}\", format: \(format)}\nbroker: {protocol: \(protocolVersion)}\n"
            switch ConfigLoader.load(text: text, path: "fuzz.yml", environment: [:]) {
            case .success(let config):
                out.append(Pipeline(config: config, logger: BridgeLogger(level: .error, sink: { _ in })))
            case .failure(let errors):
                Issue.record("the fuzz config does not load:\n\(errors)")
                throw errors
            }
        }
        return out
    }

    static let oddLevels = ["", "+", "#", "$SYS", "\u{0}", "é", "\u{FFFD}", " ", "/", "{{ topic }}", "a\u{0}b",
                            String(repeating: "l", count: 10_000)]

    static func topic(_ rng: inout SeededGenerator) -> String {
        var levels = [["j", "t", "a", "b", "n", "w", "x", "", "$SYS"].randomElement(using: &rng)!]
        for _ in 0..<Int.random(in: 0...5, using: &rng) {
            levels.append(Bool.random(using: &rng) ? oddLevels.randomElement(using: &rng)! : "l\(Int.random(in: 0...9, using: &rng))")
        }
        if Int.random(in: 0..<20, using: &rng) == 0 {
            return String(decoding: (0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) },
                          as: UTF8.self)
        }
        return levels.joined(separator: "/")
    }

    static let payloadKeys = ["c", "exp", "info", "t", "who", "s", "badge", "level", "score", "n", "drop", "urgent",
                              "x", "y", "aps", "alert", "title", "body", "sound", "relevance-score", "interruption-level",
                              "mutable-content", "content-available"]

    static func payload(_ rng: inout SeededGenerator) -> [UInt8] {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: return []
        case 1: return (0..<Int.random(in: 1...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        case 2: return Array("DROP it".utf8)
        case 3: return Array(String(repeating: "{\"x\":", count: 2_000).utf8)
        case 4:
            let aps = RandomJSON.value(depth: 2, keys: payloadKeys, using: &rng)
            let body = JSONValue.object(["aps": aps, "k": RandomJSON.value(depth: 1, using: &rng)])
            return Mutations.mutate(Array(body.jsonText.utf8), tokens: JSONFuzzTests.tokens, maxSteps: 1, using: &rng)
        default:
            var members: JSONObject = [:]
            for key in payloadKeys where Int.random(in: 0..<3, using: &rng) == 0 {
                members[key] = RandomJSON.value(depth: 2, keys: payloadKeys, using: &rng)
            }
            if Int.random(in: 0..<6, using: &rng) == 0 { members["exp"] = .int(Int64.random(in: 1...1_000, using: &rng)) }
            if Bool.random(using: &rng) {
                members["aps"] = .object(["alert": .string("hi"), "mutable-content": .int(1)])
            }
            return Array(JSONValue.object(members).jsonText.utf8)
        }
    }

    static let propertyNames = ["apns-push-type", "apns-priority", "apns-collapse-id", "apns-expiration", "apns-id", "",
                                "x", "APNS-ID", "pushbridge-hop", String(repeating: "n", count: 5_000)]
    static let propertyValues = ["", "alert", "background", "voip", "ALERT", "10", "5", "1", "0", "-1", "99999999999999999999",
                                 "9223372036854775807", "-9223372036854775808", " 5", "0A1B2C3D-0000-4000-8000-00000000ABCD",
                                 "0a1b2c3d-0000-4000-8000-00000000abcd", "not-a-uuid", "\u{0}", String(repeating: "v", count: 100_000)]

    static func properties(_ rng: inout SeededGenerator) -> [(name: String, value: String)] {
        (0..<Int.random(in: 0...4, using: &rng)).map { _ in
            (propertyNames.randomElement(using: &rng)!, propertyValues.randomElement(using: &rng)!)
        }
    }

    /// Processes `message` and checks the decision; returns it.
    @discardableResult
    static func decide(_ message: InboundMessage, in pipeline: Pipeline, now: Double,
                       sourceLocation: SourceLocation = #_sourceLocation) -> Decision? {
        let calls = Mutex<[Decision]>([])
        pipeline.process(message, id: "0a1b2c3d-0000-4000-8000-00000000abcd", now: now) { decision in
            calls.withLock { $0.append(decision) }
        }
        let decisions = calls.withLock { $0 }
        #expect(decisions.count == 1, "completion called \(decisions.count) times", sourceLocation: sourceLocation)
        guard let d = decisions.first else { return nil }
        switch d.outcome {
        case .unrouted:
            #expect(d.route == nil && d.publish.isEmpty, sourceLocation: sourceLocation)
        case .rejected:
            #expect(d.rejection != nil && d.route != nil, sourceLocation: sourceLocation)
            #expect(d.publish.count == 1, "a rejection is dead-lettered", sourceLocation: sourceLocation)
        case .delivered:
            #expect(d.request != nil && d.publish.count == 1, sourceLocation: sourceLocation)
            if let r = d.request {
                #expect((try? r.validate()) != nil, "a delivered request is valid", sourceLocation: sourceLocation)
                #expect(r.content.hasAlertText, sourceLocation: sourceLocation)
            }
        case .notDisplayed where message.retain:
            // Retained state (retained: skip) is not validated: its request may not exist.
            #expect(d.publish.isEmpty && d.rule.hasPrefix("retained state"), sourceLocation: sourceLocation)
        case .suppressed, .notDisplayed, .expired:
            #expect(d.request != nil && d.publish.isEmpty, sourceLocation: sourceLocation)
        }
        return d
    }

    @Test("random topics, payloads and user properties", arguments: [UInt64(1), 2, 3])
    func randomMessages(seed: UInt64) async throws {
        var rng = SeededGenerator(seed: seed)
        let pipelines = try Self.pipelines()
        defer { pipelines.forEach { $0.shutdown() } }
        var outcomes: Set<Outcome> = []
        let start = 1_790_000_000.0
        for round in 0..<800 {
            await Task.yield()  // let other suites' tasks run (2-core machines)
            let now = start + Double(round) * 97
            let message = InboundMessage(topic: Self.topic(&rng), payload: Self.payload(&rng),
                                         qos: Int.random(in: 0...2, using: &rng), retain: Bool.random(using: &rng),
                                         userProperties: Self.properties(&rng), receivedAt: now)
            for pipeline in pipelines {
                if let d = Self.decide(message, in: pipeline, now: now) { outcomes.insert(d.outcome) }
            }
        }
        #expect(outcomes == Set(Outcome.allCases), "every outcome should occur: \(outcomes)")
    }
}
