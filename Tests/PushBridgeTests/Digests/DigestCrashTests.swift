import Foundation
import Testing
@testable import PushBridge

/// Held alerts across a crash (the real `pushbridge` binary, SIGKILL, a real mosquitto and a
/// real ntfy server): the journal keeps the window and what it holds; after the restart the
/// summary is delivered exactly once and nothing twice.
@Suite("Integration: digests across a crash", .serialized)
struct DigestCrashTests {
    static let offline = #"{"state":"offline"}"#

    /// `restartAfterEnd`: the restart comes after the window's end (summarized at once at
    /// start), else as soon as it can (the window runs on to its end in the new process).
    @Test("SIGKILL with 4 alerts held: after the restart one summary of the 4, on the display topic and in ntfy, nothing twice",
          arguments: [false, true])
    func killWithAlertsHeld(restartAfterEnd: Bool) async throws {
        let ntfy = try await NtfyServer.make()
        let s = try await Scenario.start()
        let topic = "pb-\(UUID().uuidString.prefix(8))"
        let dir = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let http = try LoopbackPorts.free()
        let file = try writeTempFile(s.yaml("""
            journal: {path: \(dir)/journal, fsync: always}
            routes:
              - name: device-offline
                topic: "\(s.ns)/in/z2m/+/availability"
                alert: {title: "{{ levels[-2] }} offline", body: "{{ payload.state }}"}
                digest: {window: 10s, max: 2, title: "{{ digest.count }} devices offline", body: "{{ digest.titles | join(', ') }}"}
            outputs:
              - name: phones
                ntfy: {url: "\(ntfy.url(topic))"}
            """).replacingOccurrences(of: "  log_level: debug", with: "  log_level: debug\n  http: 127.0.0.1:\(http)"))
        // A window long enough that the kill always comes before its end, even on a busy machine.
        let first = try await PushbridgeBinary.start(configFile: file, broker: s.broker)
        defer { first.send(SIGKILL) }
        try await s.waitUntilOnline()
        let published = Date()
        for n in 0..<6 { try s.publish("z2m/dev\(n)/availability", Self.offline) }
        // Held means stored: the stats count a held alert after its window row and the alert are in the journal.
        try await s.waitForStats("4 held") { $0["routes"]?["device-offline"]?["digested"] == .int(4) }
        first.send(SIGKILL)
        _ = await first.waitForExit(timeout: .seconds(10))
        #expect(s.messages(on: s.display("z2m/dev5/availability")).isEmpty, "the summary was not sent before the kill")
        if restartAfterEnd {
            // The window opened after `published`: wait until its 10 s have surely passed.
            let left = 10.5 - Date().timeIntervalSince(published)
            if left > 0 { try await Task.sleep(for: .milliseconds(Int(left * 1000))) }
        }

        let second = try await PushbridgeBinary.start(configFile: file, broker: s.broker)
        defer { second.send(SIGKILL) }
        let summary = try await s.waitFor(s.display("z2m/dev5/availability"), timeout: .seconds(20))
        let json = try JSONValue.parse(summary[0].payload)
        #expect(json["title"] == .string("4 devices offline"))
        #expect(json["body"] == .string("dev2 offline, dev3 offline, dev4 offline, dev5 offline"))
        #expect(json["collapse_id"] == .string("device-offline-digest"))
        try await eventually("2 alerts and the summary in ntfy", timeout: .seconds(20)) { try ntfy.messages(topic).count >= 3 }
        let metrics = try httpGet(port: http, path: "/metrics").body
        #expect(metrics.contains(#"pushbridge_digest_total{route="device-offline",kind="sent"} 1"#), "\(metrics.suffix(800))")
        // Whatever else was on its way has had time to arrive (a duplicate would show now).
        _ = await second.terminate(grace: .seconds(10))
        let titles = try ntfy.messages(topic).compactMap { $0["title"]?.stringValue }
        #expect(titles.sorted() == ["4 devices offline", "dev0 offline", "dev1 offline"], "\(titles)")
        let displays = s.observer.messages.filter { $0.topic.hasPrefix("\(s.ns)/out/") }
        #expect(displays.count == 3, "\(displays.map { String(decoding: $0.payload, as: UTF8.self) })")
        // The journal forgot the window once the summary was handed on.
        let journal = try Journal(config: { var c = JournalConfig(); c.path = dir + "/journal"; return c }())
        #expect(try journal.loadDigests().isEmpty)
        await ntfy.stop()
    }
}
