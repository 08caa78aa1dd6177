import Foundation
import Synchronization
import Testing
@testable import PushBridge

enum StageFixtures {
    static func content(title: String? = "Original", body: String? = "Hello", sound: String? = nil,
                        userInfo: JSONValue = .object([:])) -> NotificationContent {
        var c = NotificationContent()
        c.title = title
        c.body = body
        c.sound = sound
        c.userInfo = userInfo
        return c
    }

    static func request(_ content: NotificationContent = content(), pushType: PushType? = .alert,
                        mutable: Bool = true, id: String = UUID().uuidString.lowercased()) -> NotificationRequest {
        NotificationRequest(id: id, pushType: pushType, priority: 10, mutableContent: mutable, content: content)
    }

    static func context(topic: String = "home/front/door", payload: JSONValue = .object([:]),
                        route: String = "door", pushType: PushType? = .alert) -> MessageContext {
        MessageContext(topic: topic, payload: payload, raw: "", route: route, pushType: pushType,
                       timeZone: TimeZone(identifier: "UTC")!)
    }

    static func config(timeLimit: Duration = .milliseconds(100), grace: Duration = .seconds(1),
                       onFailure: FailurePolicy = .deliver, concurrency: Int = 256,
                       filters: [FilterConfig] = [], command: [String]? = nil) -> ExtensionConfig {
        var c = ExtensionConfig()
        c.timeLimit = timeLimit
        c.expireGrace = grace
        c.onFailure = onFailure
        c.concurrency = concurrency
        c.filters = filters
        c.command = command
        return c
    }
}

extension ExtensionStage {
    /// `process` as an async call.
    func run(_ request: NotificationRequest, context: MessageContext = StageFixtures.context()) async -> StageResult {
        await withCheckedContinuation { continuation in
            process(request, context: context) { continuation.resume(returning: $0) }
        }
    }
}

/// A manual clock for filter windows and quiet hours.
final class ManualClock: Sendable {
    private let state = Mutex<(monotonic: Duration, wall: Double)>((.seconds(1000), 0))
    var stageClock: StageClock {
        StageClock(monotonic: { [self] in state.withLock { $0.monotonic } },
                   wall: { [self] in state.withLock { $0.wall } })
    }
    func advance(_ d: Duration) { state.withLock { $0.monotonic += d } }
    func setWall(_ seconds: Double) { state.withLock { $0.wall = seconds } }
}
