import Foundation
import Testing
@testable import PushBridge

/// Nothing lost across a crash (docs/outputs.md): a delivery is stored in the journal before
/// it is tried and finished only when the service accepted it.
@Suite("Integration: outputs across a crash", .serialized)
struct OutputCrashTests {
    @Test("SIGKILL of the bridge while ntfy is stopped; restart both: every alert arrives exactly once")
    func killWhileNtfyIsDown() async throws {
        let ntfy = try await NtfyServer.make(start: false)
        let s = try await Scenario.start()
        let topic = "pb-\(UUID().uuidString.prefix(8))"
        let journal = try makeTempDirectory()
        let clientID = uniqueName("bridge")
        let file = try writeTempFile(s.yaml("""
            routes:
              - name: alarm
                topic: \(s.ns)/in/alarm/+
                alert: {title: "Alarm {{ payload.n }}", body: "{{ payload.n }}"}
            journal: {path: \(journal)}
            outputs:
              - name: phones
                timeout: 2s
                ntfy: {url: "\(ntfy.url(topic))"}
            """, clientID: clientID))
        let count = 20
        let first = try await PushbridgeBinary.start(configFile: file, broker: s.broker)
        defer { first.send(SIGKILL) }
        try await s.waitUntilOnline()
        for n in 0..<count { try s.publish("alarm/\(n)", #"{"n":\#(n)}"#) }
        // Each display is published after its delivery row is stored.
        for n in 0..<count { _ = try await s.waitFor(s.display("alarm/\(n)"), timeout: .seconds(20)) }
        try await first.errorLines.waitFor("a refused connection", timeout: .seconds(20)) { $0.contains("output 'phones'") && $0.contains("retrying") }
        first.send(SIGKILL)
        _ = await first.waitForExit(timeout: .seconds(10))

        try await ntfy.start()
        let second = try await PushbridgeBinary.start(configFile: file, broker: s.broker)
        defer { second.send(SIGKILL) }
        try await eventually("\(count) alerts in ntfy", timeout: .seconds(30)) { try ntfy.messages(topic).count >= count }
        // Whatever else was on its way has had time to arrive (a duplicate would show now).
        _ = await second.terminate(grace: .seconds(10))
        let bodies = try ntfy.messages(topic).compactMap { $0["message"]?.stringValue }
        #expect(bodies.count == count, "\(bodies)")
        #expect(Set(bodies) == Set((0..<count).map(String.init)))
        await ntfy.stop()
    }

    @Test("SIGKILL with ntfy down and an alert with a picture pending; after the restart the upload carries the stored bytes")
    func killWithAnAttachmentPending() async throws {
        let ntfy = try await NtfyServer.make(uploads: true, start: false)
        let s = try await Scenario.start()
        let topic = "pb-\(UUID().uuidString.prefix(8))"
        let journal = try makeTempDirectory()
        let file = try writeTempFile(s.yaml("""
            routes:
              - name: door
                topic: \(s.ns)/in/door/event
                alert: {title: "Front door", body: "{{ payload.who }}"}
                attachments: [{identifier: snapshot, from_topic: "\(s.ns)/in/door/snapshot"}]
            journal: {path: \(journal)}
            outputs:
              - {name: phones, timeout: 2s, ntfy: {url: "\(ntfy.url(topic))"}}
            """))
        let first = try await PushbridgeBinary.start(configFile: file, broker: s.broker)
        defer { first.send(SIGKILL) }
        try await s.waitUntilOnline()
        // A picture other than the suite's 1×1: the bytes that arrive must be these.
        var png = OutputAttachmentTests.png
        png.append(contentsOf: Array("tail of a bigger picture".utf8))
        try s.publish("door/snapshot", bytes: png)
        try s.publish("door/event", #"{"who":"Alice"}"#)
        let display = try JSONValue.parse(try await s.waitFor(s.display("door/event"), timeout: .seconds(20))[0].payload)
        #expect(display["attachments"]?[0]?["identifier"] == .string("snapshot"))
        #expect(display["attachments"]?[0]?["url"] == nil, "no public_url and no monitoring.http: no URL to give")
        try await first.errorLines.waitFor("a refused connection", timeout: .seconds(20)) { $0.contains("output 'phones'") && $0.contains("retrying") }
        first.send(SIGKILL)
        _ = await first.waitForExit(timeout: .seconds(10))

        try await ntfy.start()
        let second = try await PushbridgeBinary.start(configFile: file, broker: s.broker)
        defer { second.send(SIGKILL) }
        try await eventually("the alert in ntfy", timeout: .seconds(30)) { try ntfy.messages(topic).count >= 1 }
        _ = await second.terminate(grace: .seconds(10))
        let got = try ntfy.messages(topic)
        #expect(got.count == 1)
        #expect(got.first?["message"] == .string("Alice"))
        #expect(got.first?["attachment"]?["name"] == .string("snapshot.png"))
        let url = try #require(got.first?["attachment"]?["url"]?.stringValue)
        #expect(try loopbackHTTP(ServiceRequest(method: "GET", url: url)).body == png)
        await ntfy.stop()
    }

    @Test("SIGTERM with ntfy down exits without waiting for it; the deliveries are sent after the restart")
    func stopWhileNtfyIsDown() async throws {
        let ntfy = try await NtfyServer.make(start: false)
        let s = try await Scenario.start()
        let topic = "pb-\(UUID().uuidString.prefix(8))"
        let file = try writeTempFile(s.yaml("""
            routes:
              - {name: alarm, topic: "\(s.ns)/in/alarm/+", alert: {title: "Alarm", body: "{{ payload.n }}"}}
            journal: {path: \(try makeTempDirectory())}
            outputs:
              - {name: phones, timeout: 2s, ntfy: {url: "\(ntfy.url(topic))"}}
            """))
        let first = try await PushbridgeBinary.start(configFile: file, broker: s.broker)
        defer { first.send(SIGKILL) }
        try await s.waitUntilOnline()
        for n in 0..<5 { try s.publish("alarm/\(n)", #"{"n":\#(n)}"#) }
        for n in 0..<5 { _ = try await s.waitFor(s.display("alarm/\(n)")) }
        try await first.errorLines.waitFor("retrying", timeout: .seconds(20)) { $0.contains("output 'phones'") && $0.contains("retrying") }
        let r = await first.terminate(grace: .seconds(20))
        #expect(r.exitedNormally && r.status == 0 && !r.timedOut, "\(r.stderr.suffix(600))")
        #expect(r.stderr.contains("kept in the journal for the next start"))
        try await ntfy.start()
        let second = try await PushbridgeBinary.start(configFile: file, broker: s.broker)
        defer { second.send(SIGKILL) }
        try await eventually("5 alerts in ntfy", timeout: .seconds(30)) { try ntfy.messages(topic).count >= 5 }
        _ = await second.terminate(grace: .seconds(10))
        #expect(Set(try ntfy.messages(topic).compactMap { $0["message"]?.stringValue }) == Set((0..<5).map(String.init)))
        #expect(try ntfy.messages(topic).count == 5)
        await ntfy.stop()
    }
}
