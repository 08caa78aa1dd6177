import Foundation
import Testing
@testable import PushBridge

/// The store over HTTP: the capability URL serves the bytes with their type and without the
/// dashboard's token; anything else under /attachments/ is 404; `keep` ends it; the counters
/// reach /metrics; after a SIGKILL the restarted bridge still serves what it stored.
@Suite("Integration: attachments over HTTP", .serialized)
struct AttachmentServingTests {
    static let png = AttachmentGatherTests.png

    static func get(_ url: String, token: String? = nil) throws -> ServiceResponse {
        try loopbackHTTP(ServiceRequest(method: "GET", url: url, headers: token.map { [("Authorization", "Bearer \($0)")] } ?? []))
    }

    static func yaml(_ s: Scenario, port: Int, tokenFile: String, keep: String = "1h", journal: String? = nil) -> String {
        s.yaml("""
            routes:
              - name: door
                topic: \(s.ns)/in/door
                alert: {title: Door}
                attachments:
                  - {identifier: snapshot, from_topic: "\(s.ns)/cam/{{ payload.cam }}/snapshot"}
            attachments: {wait: 1s, keep: \(keep)}
            \(journal.map { "journal: {path: \($0)}" } ?? "")
            """).replacingOccurrences(of: "  log_level: debug", with: "  log_level: debug\n  http: 127.0.0.1:\(port)\n  http_auth: {token_file: \(tokenFile)}")
    }

    /// Publishes the front camera's snapshot, then a ring; the URL of the ring's attachment.
    static func ringWithSnapshot(_ s: Scenario, retain: Bool = false) async throws -> String {
        _ = try s.observer.client.publish(topic: "\(s.ns)/cam/front/snapshot", payload: png, qos: 1, retain: retain, userProperties: [])
        try await Task.sleep(for: .milliseconds(200))
        try s.publish("door", #"{"cam":"front"}"#)
        let display = try JSONValue.parse(try await s.waitFor(s.display("door")).first!.payload)
        guard case .array(let list)? = display["attachments"], let url = list.first?["url"]?.stringValue else {
            throw ProcessError(description: "no attachment URL in \(display)")
        }
        return url
    }

    @Test("the URL serves the bytes without the token; guesses, listings and expired ones are 404; counters on /metrics")
    func served() async throws {
        let s = try await Scenario.start()
        let port = try LoopbackPorts.free()
        let tokenFile = try writeTempFile("dashboard-token-0123456789\n", name: "token")
        let bridge = try InProcessBridge.start(yaml: Self.yaml(s, port: port, tokenFile: tokenFile, keep: "5m"))
        try await s.waitUntilOnline()
        let url = try await Self.ringWithSnapshot(s)
        #expect(url.hasPrefix("http://127.0.0.1:\(port)/attachments/") && url.hasSuffix("/snapshot.png"))
        let answer = try Self.get(url)
        #expect(answer.status == 200 && answer.body == Self.png)
        #expect(answer.headers["content-type"] == "image/png" && answer.headers["x-content-type-options"] == "nosniff")
        // The dashboard still asks for the token; the attachment never did.
        #expect(try Self.get("http://127.0.0.1:\(port)/api/stats").status == 401)
        let token = String(url.split(separator: "/")[3])
        let base = "http://127.0.0.1:\(port)/attachments/"
        for path in ["", token, token + "/", "\(AttachmentStore.newToken())/snapshot.png", "\(token)/snapshot.jpg",
                     "\(token)/other.png", "\(token)/snapshot.png/x"] {
            #expect(try Self.get(base + path).status == 404, "\(path)")
        }
        // Dot segments a client did not resolve itself never reach a file.
        let files = AttachmentDownloads(slot: bridge.bridge.attachmentSlot)
        #expect(files.item(for: "/attachments/\(token)/snapshot.png") != nil)
        for path in ["/attachments/\(token)/../\(token)/snapshot.png", "/attachments/../\(token)/snapshot.png",
                     "/attachments/\(token)/./snapshot.png", "/attachments/\(token)/snapshot.png/.."] {
            #expect(files.item(for: path) == nil, "\(path)")
        }
        // Failures and the store reach /metrics (with the dashboard's token).
        try s.publish("door", #"{"cam":"back"}"#)
        _ = try await s.waitFor(s.display("door"), count: 2)
        let metrics = try Self.get("http://127.0.0.1:\(port)/metrics", token: "dashboard-token-0123456789").body
        let text = String(decoding: metrics, as: UTF8.self)
        #expect(text.contains("pushbridge_attachment_failures_total{route=\"door\",reason=\"FetchFailed\"} 1"), "\(text.prefix(3000))")
        #expect(text.contains("pushbridge_attachment_store_bytes \(Self.png.count)"))
        try await bridge.stop()
    }

    @Test("after keep the URL answers 404 and the file is gone")
    func expires() async throws {
        let s = try await Scenario.start()
        let port = try LoopbackPorts.free()
        let tokenFile = try writeTempFile("dashboard-token-0123456789\n", name: "token")
        let bridge = try InProcessBridge.start(yaml: Self.yaml(s, port: port, tokenFile: tokenFile, keep: "1s"))
        try await s.waitUntilOnline()
        let url = try await Self.ringWithSnapshot(s)
        try await eventually("the URL expired", timeout: .seconds(15)) { try Self.get(url).status == 404 }
        let store = try #require(bridge.bridge.attachmentSlot.service?.store)
        store.sweep()
        #expect(store.counts.files == 0 && store.counts.expired == 1)
        try await bridge.stop()
    }

    @Test("SIGKILL: the restarted bridge (journal) still serves what it stored")
    func survivesACrash() async throws {
        let s = try await Scenario.start()
        let port = try LoopbackPorts.free()
        let tokenFile = try writeTempFile("dashboard-token-0123456789\n", name: "token")
        let journal = try makeTempDirectory()
        let file = try writeTempFile(Self.yaml(s, port: port, tokenFile: tokenFile, journal: journal))
        let first = try PushbridgeBinary.run(configFile: file)
        try await s.waitUntilOnline()
        let url = try await Self.ringWithSnapshot(s, retain: true)
        #expect(try Self.get(url).body == Self.png)
        first.send(SIGKILL)
        _ = await first.terminate(grace: .seconds(5))
        let second = try PushbridgeBinary.run(configFile: file)
        defer { second.send(SIGKILL) }
        try await s.waitUntilOnline(times: 2)
        try await eventually("the store served again") { (try? Self.get(url).status) == 200 }
        #expect(try Self.get(url).body == Self.png)
        #expect(FileManager.default.fileExists(atPath: journal + "/attachments"))
        _ = await second.terminate(grace: .seconds(10))
    }
}
