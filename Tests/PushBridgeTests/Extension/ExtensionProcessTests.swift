import Foundation
import Testing
@testable import PushBridge

/// The external extension process's protocol, with `FakeExtensionChild --retitle --jitter` (its
/// table: the default answer has the title `ext:<body>` and comes after a random delay up to 30 ms,
/// out of order).
@Suite("External extension process")
struct ExtensionProcessTests {
    /// A stage running the scripted child, once the child has said it is ready (so a
    /// request's time limit never includes starting Python on a loaded machine).
    static func stage(timeLimit: Duration = .seconds(3), grace: Duration = .milliseconds(300),
                      onFailure: FailurePolicy = .deliver, granted: Bool = true,
                      log: LogCollector = LogCollector()) async throws -> ExtensionStage {
        let config = StageFixtures.config(timeLimit: timeLimit, grace: grace, onFailure: onFailure,
                                          command: try FakeExtensionChild.command(.retitle, .jitter))
        let stage = ExtensionStage(config: config, filteringGranted: granted, logger: log.logger())
        do {
            try await log.waitFor(line: "extension: child ready", timeout: .seconds(60))
        } catch {
            stage.shutdown()
            throw error
        }
        return stage
    }

    static func request(_ body: String) -> NotificationRequest {
        StageFixtures.request(StageFixtures.content(title: "Title", body: body))
    }

    @Test func modifies() async throws {
        let stage = try await Self.stage()
        defer { stage.shutdown() }
        let result = await stage.run(Self.request("hello"))
        #expect(result.deliveredContent?.title == "ext:hello")
        #expect(result.deliveredContent?.body == "hello")
        #expect(result.modified)
        #expect(result.filterTrace == [FilterTrace(name: "command", verdict: "answered")])
    }

    @Test func sendsTheSpecRequestShape() async throws {
        let stage = try await Self.stage()
        defer { stage.shutdown() }
        var content = StageFixtures.content(title: "Title", body: "echo", sound: "default",
                                            userInfo: .object(["k": .int(1)]))
        content.badge = 3
        let request = StageFixtures.request(content, id: "0a1b2c3d-0000-4000-8000-000000000001")
        let result = await stage.run(request, context: StageFixtures.context(topic: "home/x", route: "door"))
        // The child echoes the content unchanged: nothing lost on the way there and back.
        #expect(result.verdict == .deliver(content, modified: false))
    }

    @Test func suppresses() async throws {
        let stage = try await Self.stage()
        defer { stage.shutdown() }
        let result = await stage.run(Self.request("suppress"))
        #expect(result.verdict == .suppressed(decidedBy: "command"))
    }

    @Test func suppressionWithoutEntitlementDeliversTheOriginal() async throws {
        let stage = try await Self.stage(granted: false)
        defer { stage.shutdown() }
        let request = Self.request("suppress")
        let result = await stage.run(request)
        #expect(result.verdict == .deliver(request.content, modified: false))
        #expect(result.filterTrace.first?.verdict == "answered — not applied: entitlement missing")
    }

    @Test func timesOut() async throws {
        let log = LogCollector()
        let stage = try await Self.stage(timeLimit: .milliseconds(200), grace: .milliseconds(150), log: log)
        defer { stage.shutdown() }
        let request = Self.request("never")
        let result = await stage.run(request)
        #expect(result.verdict == .deliver(request.content, modified: false))
        #expect(result.timedOut)
        #expect(result.duration >= .milliseconds(350))
    }

    @Test func lateAnswersAreIgnoredAndLoggedAtDebug() async throws {
        let log = LogCollector()
        let stage = try await Self.stage(timeLimit: .milliseconds(150), grace: .milliseconds(100), log: log)
        defer { stage.shutdown() }
        let request = Self.request("slow")
        let result = await stage.run(request)
        #expect(result.timedOut && result.verdict == .deliver(request.content, modified: false))
        try await log.waitFor("the late answer logged at debug", timeout: .seconds(2)) {
            $0.contains("debug") && $0.contains("ignored (late or unknown)")
        }
        let next = await stage.run(Self.request("fine"))
        #expect(next.deliveredContent?.title == "ext:fine")
    }

    @Test func answersOnTimeWillExpire() async throws {
        let stage = try await Self.stage(timeLimit: .milliseconds(200), grace: .seconds(2))
        defer { stage.shutdown() }
        let result = await stage.run(Self.request("expire"))
        #expect(result.deliveredContent?.title == "rescued")
        #expect(!result.timedOut)
        #expect(result.filterTrace.first?.verdict == "answered after time_will_expire")
    }

    @Test func garbageFailsThatRequest() async throws {
        for onFailure in [FailurePolicy.deliver, .drop] {
            let stage = try await Self.stage(onFailure: onFailure)
            defer { stage.shutdown() }
            for body in ["garbage", "badtitle", "nonjson"] {
                let request = Self.request(body)
                let result = await stage.run(request)
                #expect(result.extensionFailed)
                if onFailure == .deliver {
                    #expect(result.verdict == .deliver(request.content, modified: false))
                } else if case .dropped = result.verdict {} else {
                    Issue.record("expected a drop for \(body), got \(result.verdict)")
                }
            }
        }
    }

    @Test func unusableLinesAreLoggedAndStderrIsForwarded() async throws {
        let log = LogCollector()
        let stage = try await Self.stage(log: log)
        defer { stage.shutdown() }
        let result = await stage.run(Self.request("noise"))
        #expect(result.deliveredContent?.title == "ext:noise")
        #expect(log.contains("unusable line ignored"))
        #expect(log.contains("extension: child ready"))
    }

    @Test func crashFailsOpenRequestsAndTheChildComesBack() async throws {
        let log = LogCollector()
        // The crash must come before the open request's time limit: a generous one, for a loaded machine.
        let stage = try await Self.stage(timeLimit: .seconds(20), log: log)
        defer { stage.shutdown() }
        let warmup = await stage.run(Self.request("one"))
        #expect(warmup.deliveredContent?.title == "ext:one")
        // A request the child never answers, in flight when it crashes.
        async let open = stage.run(Self.request("never"))
        try await log.waitFor(line: "extension: holding never")
        let crash = await stage.run(Self.request("crash"))
        #expect(crash.extensionFailed && !crash.timedOut)
        let stranded = await open
        #expect(stranded.extensionFailed && !stranded.timedOut)
        // Sent while the child restarts: waits for the new child.
        let after = await stage.run(Self.request("two"))
        #expect(after.deliveredContent?.title == "ext:two")
        #expect(log.contains("process exited (status 3)"))
    }

    @Test func fiveHundredAnsweredInRandomOrder() async throws {
        let stage = try await Self.stage(timeLimit: .seconds(8))
        defer { stage.shutdown() }
        let results = await withTaskGroup(of: (Int, StageResult).self) { group in
            for i in 0..<500 {
                group.addTask { (i, await stage.run(Self.request("m\(i)"))) }
            }
            var all: [(Int, StageResult)] = []
            for await r in group { all.append(r) }
            return all
        }
        #expect(results.count == 500)
        for (i, result) in results {
            #expect(result.deliveredContent?.title == "ext:m\(i)", "request \(i)")
            #expect(result.deliveredContent?.body == "m\(i)")
        }
    }

    @Test func shutdownStopsTheChildAndFailsOpenRequests() async throws {
        // A time limit far beyond the test: on a loaded machine the child may take seconds to start.
        let log = LogCollector()
        let stage = try await Self.stage(timeLimit: .seconds(60), onFailure: .drop, log: log)
        async let open = stage.run(Self.request("never"))
        try await log.waitFor(line: "extension: holding never", timeout: .seconds(30))
        stage.shutdown()
        let result = await open
        #expect(result.extensionFailed)
        if case .dropped = result.verdict {} else { Issue.record("expected a drop, got \(result.verdict)") }
    }
}
