import Foundation
import Synchronization
import Testing
@testable import PushBridge

/// `Pipeline.decide` (the bridge's per-message path: decided in the receiving thread, or
/// handed over to the asynchronous steps) gives the decisions `Pipeline.process` gives.
@Suite("Hot path: decide without a completion")
struct DecideShortcutTests {
    static let yaml = """
        entitlements: [com.apple.developer.usernotifications.filtering]
        routes:
          - name: bench
            topic: bench/+/+
            input: json
            alert:
              title: "Room {{ payload.room }}"
              body: "{{ payload.who | default('Someone') }} rang at {{ levels[2] }}"
          - name: plain
            topic: plain/#
            input: text
            mutable_content: false
            alert: {body: "{{ payload }}"}
        extension:
          filters:
            - name: drop
              suppress: 'payload.drop == true'
        display: {topic: "display/{{ topic }}", format: json}

        """

    static func pipeline(serviceExtension: ExtensionFactory? = nil) throws -> Pipeline {
        switch ConfigLoader.load(text: yaml, path: "decide.yml", environment: [:]) {
        case .success(let config):
            return Pipeline(config: config, logger: BridgeLogger(level: .error, sink: { _ in }),
                            serviceExtension: serviceExtension)
        case .failure(let errors):
            Issue.record("the config does not load:\n\(errors)")
            throw errors
        }
    }

    static let messages: [InboundMessage] = [
        InboundMessage(topic: "bench/r1/t2", payload: Array(#"{"n":1,"drop":false,"who":"Alice","room":"r1"}"#.utf8),
                       receivedAt: 1_000),
        InboundMessage(topic: "bench/r1/t3", payload: Array(#"{"n":2,"drop":true,"who":"Bob","room":"r1"}"#.utf8),
                       receivedAt: 1_001),
        InboundMessage(topic: "bench/r1/t4", payload: Array("not json".utf8), receivedAt: 1_002),
        InboundMessage(topic: "bench/r1/t5", payload: [], receivedAt: 1_003),
        InboundMessage(topic: "plain/x", payload: Array("hello".utf8), receivedAt: 1_004),
        InboundMessage(topic: "nowhere", payload: Array("{}".utf8), receivedAt: 1_005),
    ]

    static let id = "0a1b2c3d-0000-4000-8000-00000000abcd"

    /// What must agree between two decisions for one message.
    static func summary(_ d: Decision) -> String {
        "\(d.outcome.rawValue) | \(d.route ?? "-") | \(d.rule) | \(d.decidedBy ?? "-") | modified \(d.modified) | "
            + d.publish.map { "\($0.topic) \($0.payloadText)" }.joined(separator: " ; ")
    }

    static func viaProcess(_ message: InboundMessage, _ pipeline: Pipeline) async -> Decision {
        await withCheckedContinuation { continuation in
            pipeline.process(message, id: id, now: message.receivedAt) { continuation.resume(returning: $0) }
        }
    }

    @Test("filters only: every message is decided in the caller's thread, as process decides it")
    func synchronous() async throws {
        let pipeline = try Self.pipeline()
        for message in Self.messages {
            guard case .decided(let fast) = pipeline.decide(message, id: Self.id, now: message.receivedAt) else {
                Issue.record("\(message.topic): not decided synchronously")
                continue
            }
            let slow = await Self.viaProcess(message, pipeline)
            #expect(Self.summary(fast) == Self.summary(slow), "\(message.topic)")
        }
    }

    @Test("with a Swift extension: requests for it wait, and starting them gives process's decision")
    func asynchronous() async throws {
        let pipeline = try Self.pipeline(serviceExtension: .native(AppendingExtension(suffix: " + ext")))
        for message in Self.messages {
            let fast: Decision
            switch pipeline.decide(message, id: Self.id, now: message.receivedAt) {
            case .decided(let d):
                // Only requests that reach the stage's asynchronous steps wait.
                #expect(d.outcome != .delivered || d.rule.contains("mutable-content not set"), "\(message.topic)")
                fast = d
            case .waiting(let waiting):
                fast = await withCheckedContinuation { continuation in
                    waiting.start { continuation.resume(returning: $0) }
                }
            }
            let slow = await Self.viaProcess(message, pipeline)
            #expect(Self.summary(fast) == Self.summary(slow), "\(message.topic)")
        }
    }
}
