import Foundation
import Synchronization
import Testing
@testable import PushBridge

/// An asynchronous step lets go of its request once it has ended: found by LeakSanitizer
/// under `make sanitize` (every message through an extension step kept its request, context,
/// content and completion alive: the step's attempt and its holder held each other).
@Suite("Extension step release")
struct StepReleaseTests {
    /// Captured by the completion; freed only when nothing holds the request's run any more.
    final class Token: Sendable {}

    /// An async extension answering at once with a changed title.
    struct Retitle: NotificationServiceExtension {
        func didReceive(_ request: NotificationRequest) async throws -> NotificationContent {
            var content = request.content
            content.title = "Changed"
            return content
        }
    }

    @Test("after the answer, nothing holds the request's completion",
          arguments: ["native", "apple", "throws"])
    func completionIsReleased(kind: String) async throws {
        let factory: ExtensionFactory = switch kind {
        case "native": .native(Retitle())
        case "apple": .apple { ScriptedExtension(answer: .alertText, timing: .onTime) }
        default: .native(ThrowingExtension())
        }
        let stage = ExtensionStage(config: StageFixtures.config(timeLimit: .seconds(60)), filteringGranted: true,
                                   serviceExtension: factory, logger: BridgeLogger(level: .error))
        weak var released: Token?
        do {
            let token = Token()
            released = token
            let _: StageResult = await withCheckedContinuation { continuation in
                stage.process(StageFixtures.request(), context: StageFixtures.context()) { result in
                    _ = token
                    continuation.resume(returning: result)
                }
            }
        }
        // The step's queues drop their references just after the completion returns.
        // Nothing announces a deinit: check until it has happened.
        try await eventually("the request's completion released", timeout: .seconds(20)) { released == nil }
        stage.shutdown()
    }
}
