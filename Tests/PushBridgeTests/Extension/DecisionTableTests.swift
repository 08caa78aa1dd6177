import Foundation
import Testing
@testable import PushBridge

/// What a scripted test extension hands to the content handler.
enum ScriptedAnswer: String, CaseIterable, Sendable {
    case empty, alertText, soundOnly
}

/// When a scripted test extension calls the handler.
enum ScriptedTiming: String, CaseIterable, Sendable {
    case onTime, afterExpire, never, twice
}

/// An Apple-style extension that answers as scripted.
final class ScriptedExtension: UNNotificationServiceExtension {
    let answer: ScriptedAnswer
    let timing: ScriptedTiming
    /// Counts the requests received, for a test that waits until one is inside.
    let received: Watched<Int>?
    private var pending: ((UNNotificationContent) -> Void)?
    private var bestAttempt: UNNotificationContent?

    init(answer: ScriptedAnswer, timing: ScriptedTiming, received: Watched<Int>? = nil) {
        self.answer = answer
        self.timing = timing
        self.received = received
    }

    private func make(from request: UNNotificationRequest, title: String) -> UNNotificationContent {
        switch answer {
        case .empty:
            return UNNotificationContent()
        case .soundOnly:
            let content = UNMutableNotificationContent()
            content.sound = .default
            return content
        case .alertText:
            let content = request.content.mutableCopy() as! UNMutableNotificationContent
            content.title = title
            return content
        }
    }

    override func didReceive(_ request: UNNotificationRequest,
                             withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        received?.update { $0 += 1 }
        switch timing {
        case .onTime:
            contentHandler(make(from: request, title: "Changed"))
        case .twice:
            contentHandler(make(from: request, title: "Changed"))
            contentHandler(make(from: request, title: "Second call"))
        case .afterExpire:
            pending = contentHandler
            bestAttempt = make(from: request, title: "Changed")
        case .never:
            break
        }
    }

    override func serviceExtensionTimeWillExpire() {
        if timing == .afterExpire, let pending, let bestAttempt { pending(bestAttempt) }
    }
}

struct TableCase: Sendable, CustomTestStringConvertible {
    var granted: Bool
    var pushType: PushType?
    var answer: ScriptedAnswer
    var timing: ScriptedTiming
    var testDescription: String {
        "\(granted ? "entitled" : "not entitled"), push type \(pushType?.rawValue ?? "none"), \(answer), \(timing)"
    }

    static let all: [TableCase] = [true, false].flatMap { granted in
        [PushType.alert, nil, .background].flatMap { pushType in
            ScriptedAnswer.allCases.flatMap { answer in
                ScriptedTiming.allCases.map { TableCase(granted: granted, pushType: pushType, answer: answer, timing: $0) }
            }
        }
    }
}

struct FailureCase: Sendable, CustomTestStringConvertible {
    var granted: Bool
    var pushType: PushType?
    var onFailure: FailurePolicy
    var native: Bool
    var testDescription: String {
        "\(native ? "async throws" : "factory throws"), \(granted ? "entitled" : "not entitled"), push type \(pushType?.rawValue ?? "none"), on_failure \(onFailure)"
    }

    static let all: [FailureCase] = [true, false].flatMap { granted in
        [PushType.alert, nil].flatMap { pushType in
            [FailurePolicy.deliver, .drop].flatMap { policy in
                [false, true].map { FailureCase(granted: granted, pushType: pushType, onFailure: policy, native: $0) }
            }
        }
    }
}

struct Boom: Error {}

/// An async extension that always throws.
struct ThrowingExtension: NotificationServiceExtension {
    func didReceive(_ request: NotificationRequest) async throws -> NotificationContent { throw Boom() }
}

/// Rule 5 of docs/decisions.md, the whole table: a 100 ms time limit, a 1 s grace (generous, so a
/// loaded machine cannot turn an answer within the grace into a timeout).
@Suite("Rule 5 decision table")
struct DecisionTableTests {
    @Test(arguments: TableCase.all)
    func decision(_ c: TableCase) async {
        let stage = ExtensionStage(config: StageFixtures.config(), filteringGranted: c.granted,
                                   serviceExtension: .apple { ScriptedExtension(answer: c.answer, timing: c.timing) },
                                   logger: BridgeLogger(level: .error))
        let request = StageFixtures.request(pushType: c.pushType)
        let result = await stage.run(request, context: StageFixtures.context(pushType: c.pushType))
        let original = StageResult.Verdict.deliver(request.content, modified: false)

        // The stage's guard: only alert or absent push types run the extension.
        if c.pushType == .background {
            #expect(result.verdict == original)
            #expect(result.filterTrace.isEmpty && !result.timedOut)
            #expect(result.rule.contains("not run"))
            return
        }
        if c.timing == .never {
            #expect(result.verdict == original)
            #expect(result.timedOut)
            #expect(result.filterTrace == [FilterTrace(name: "extension", verdict: "timed out")])
            return
        }
        #expect(!result.timedOut && !result.extensionFailed)
        let traceVerdict = result.filterTrace.first?.verdict ?? ""
        #expect(traceVerdict.hasPrefix(c.timing == .afterExpire ? "answered after time_will_expire" : "answered"))
        switch c.answer {
        case .alertText:
            var expected = request.content
            expected.title = "Changed"   // the second call of `twice` is ignored
            #expect(result.verdict == .deliver(expected, modified: true))
        case .empty:
            if c.granted && c.pushType == .alert {
                #expect(result.verdict == .suppressed(decidedBy: "extension"))
            } else {
                #expect(result.verdict == original)
                #expect(traceVerdict.contains("not applied: \(c.granted ? "push type none" : "entitlement missing")"))
            }
        case .soundOnly:
            #expect(result.verdict == original)
            #expect(result.rule.contains("not empty"))
        }
    }

    @Test(arguments: FailureCase.all)
    func failure(_ c: FailureCase) async {
        let factory: ExtensionFactory = c.native
            ? .native(ThrowingExtension())
            : .apple { throw Boom() }
        let stage = ExtensionStage(config: StageFixtures.config(timeLimit: .seconds(60), onFailure: c.onFailure),
                                   filteringGranted: c.granted,
                                   serviceExtension: factory, logger: BridgeLogger(level: .error))
        let request = StageFixtures.request(pushType: c.pushType)
        let result = await stage.run(request, context: StageFixtures.context(pushType: c.pushType))
        #expect(result.extensionFailed && !result.timedOut)
        switch c.onFailure {
        case .deliver: #expect(result.verdict == .deliver(request.content, modified: false))
        case .drop:
            guard case .dropped(let reason) = result.verdict else {
                Issue.record("expected a drop, got \(result.verdict)"); return
            }
            #expect(reason.contains("extension failed"))
        }
    }

    @Test(arguments: [(false, "no mutable-content"), (true, "no alert text")])
    func guardReturnsTheOriginal(mutable: Bool, reason: String) async {
        let stage = ExtensionStage(config: StageFixtures.config(), filteringGranted: true,
                                   serviceExtension: .apple { ScriptedExtension(answer: .empty, timing: .onTime) },
                                   logger: BridgeLogger(level: .error))
        let content = mutable ? StageFixtures.content(title: nil, body: nil, sound: "default") : StageFixtures.content()
        let request = StageFixtures.request(content, mutable: mutable)
        let result = await stage.run(request)
        #expect(result.verdict == .deliver(content, modified: false))
        #expect(result.rule.contains(reason))
    }
}
