import Foundation
import Testing
@testable import PushBridge

// Runs Apple's example (AppleFilteringExampleTests.swift, which sees only the public API)
// through the extension stage.
@Suite("Apple's filtering example")
struct AppleFilteringExampleTests {
    private func stage(granted: Bool) -> ExtensionStage {
        var config = ExtensionConfig()
        config.timeLimit = .seconds(60)
        return ExtensionStage(config: config, filteringGranted: granted,
                              serviceExtension: .apple { NotificationService() }, logger: BridgeLogger(level: .error))
    }

    private func request(suppress: Bool, pushType: PushType?) -> NotificationRequest {
        var content = NotificationContent()
        content.title = "Door"
        content.body = "Someone rang"
        content.userInfo = .object(["suppress": .bool(suppress), "room": .string("hall")])
        return NotificationRequest(id: UUID().uuidString.lowercased(), pushType: pushType, priority: 10,
                                   mutableContent: true, content: content)
    }

    private func run(_ stage: ExtensionStage, _ request: NotificationRequest) async -> StageResult {
        await withCheckedContinuation { continuation in
            stage.process(request, context: MessageContext(topic: "home/door", payload: .null, raw: "")) {
                continuation.resume(returning: $0)
            }
        }
    }

    @Test func suppressesWithEntitlementAndAlertPushType() async {
        let result = await run(stage(granted: true), request(suppress: true, pushType: .alert))
        #expect(result.verdict == .suppressed(decidedBy: "extension"))
        #expect(!result.timedOut && !result.extensionFailed)
    }

    @Test func deliversTheUnchangedCopyWhenNotSuppressing() async {
        let original = request(suppress: false, pushType: .alert)
        let result = await run(stage(granted: true), original)
        #expect(result.verdict == .deliver(original.content, modified: false))
    }

    @Test func deliversTheOriginalWithoutTheEntitlement() async {
        let original = request(suppress: true, pushType: .alert)
        let result = await run(stage(granted: false), original)
        #expect(result.verdict == .deliver(original.content, modified: false))
        #expect(result.rule.contains("entitlement missing"))
    }

    @Test func deliversTheOriginalForTheLegacyPushTypeNone() async {
        let original = request(suppress: true, pushType: nil)
        let result = await run(stage(granted: true), original)
        #expect(result.verdict == .deliver(original.content, modified: false))
        #expect(result.rule.contains("push type none"))
    }
}
