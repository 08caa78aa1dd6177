import Foundation
import Testing
@testable import PushBridge

/// Huge and deeply nested payloads through the pipeline complete with bounded memory.
///
/// RSS from `/proc/self/status` is a sanity bound only (tests run in parallel, so the
/// process's growth includes other tests); it catches an explosion, not a regression.
@Suite("Fuzz: memory bounds", .serialized)
struct MemoryBoundTests {
    static let bound = 500_000_000

    @Test("a 10 MB payload on every input mode, and 100 000-deep JSON")
    func hugePayloads() async throws {
        let pipeline = try PipelineFuzzTests.pipelines()[0]
        defer { pipeline.shutdown() }
        let before = ResidentMemory.current() ?? 0
        let tenMB = 10_000_000
        let big = String(repeating: "a", count: tenMB)
        let deepArrays = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let deepObjects = String(repeating: "{\"x\":", count: 100_000) + "1" + String(repeating: "}", count: 100_000)
        // Invalid UTF-8 every 100 KB (each repair is slow under Swift Testing's throw hook, not in the bridge).
        let oddText: [UInt8] = (0..<tenMB).map { $0 % 100_000 == 99_999 ? 0xFF : UInt8(ascii: "y") }
        let cases: [(topic: String, payload: [UInt8], properties: [(name: String, value: String)])] = [
            ("j/1", Array("{\"who\":\"\(big)\"}".utf8), [("x", big)]),
            ("t/1", oddText, []),
            ("a/1", Array("{\"aps\":{\"alert\":\"\(big)\"}}".utf8), [("apns-collapse-id", big)]),
            ("b/1", Array(big.utf8), []),
            ("j/2", Array(deepArrays.utf8), []),
            ("w/e/r/t", Array(deepObjects.utf8), []),
            ("a/2", Array(deepObjects.utf8), []),
        ]
        for (topic, payload, properties) in cases {
            await Task.yield()  // let other suites' tasks run (2-core machines)
            let message = InboundMessage(topic: topic, payload: payload, userProperties: properties,
                                         receivedAt: 1_790_000_000)
            let decision = PipelineFuzzTests.decide(message, in: pipeline, now: 1_790_000_000)
            #expect(decision?.outcome == .rejected, "\(topic): \(decision.map { "\($0.outcome)" } ?? "none")")
            // The dead letter carries the payload (as a JSON string) and little else.
            for m in decision?.publish ?? [] { #expect(m.payload.count < 3 * tenMB) }
        }
        let growth = (ResidentMemory.current() ?? 0) - before
        #expect(growth < Self.bound, "RSS grew by \(growth / 1_000_000) MB")
    }
}
