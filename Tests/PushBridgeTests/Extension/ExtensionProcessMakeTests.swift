import Foundation
import Testing
@testable import PushBridge

/// `ExtensionProcess.make` is the only way to start the child: it throws when it cannot, and
/// a stage whose command cannot be started fails each request that reaches it (`on_failure`).
@Suite("External extension process: the throwing factory")
struct ExtensionProcessMakeTests {
    static let missing = ["/nonexistent/pushbridge-\(UUID().uuidString)/filter"]

    @Test func makeThrowsForAProgramThatCannotBeStarted() {
        #expect(throws: (any Error).self) { try ExtensionProcess.make(command: Self.missing, logger: BridgeLogger(level: .error)) }
    }

    @Test(arguments: [FailurePolicy.deliver, .drop])
    func aStageWhoseCommandCannotStartFailsEachRequest(onFailure: FailurePolicy) async {
        let log = LogCollector()
        let stage = ExtensionStage(config: StageFixtures.config(onFailure: onFailure, command: Self.missing),
                                   filteringGranted: true, logger: log.logger())
        defer { stage.shutdown() }
        let request = StageFixtures.request()
        let result = await stage.run(request)
        #expect(result.extensionFailed && !result.timedOut)
        #expect(result.filterTrace == [FilterTrace(name: "command", verdict: "failed: extension process could not be started")])
        if onFailure == .deliver {
            #expect(result.verdict == .deliver(request.content, modified: false))
        } else if case .dropped = result.verdict {} else {
            Issue.record("expected a drop, got \(result.verdict)")
        }
        #expect(log.contains("extension: cannot start /nonexistent/"))
    }
}
