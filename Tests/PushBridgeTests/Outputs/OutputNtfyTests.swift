import Foundation
import Testing
@testable import PushBridge

/// The ntfy output against a real ntfy server (Debian's package, integration/ntfy/install.sh),
/// read back through ntfy's own JSON API.
@Suite("Integration: ntfy output", .serialized)
struct OutputNtfyTests {
    static func routes(_ s: Scenario) -> String {
        """
        routes:
          - name: alarm
            topic: \(s.ns)/in/alarm/+
            collapse_id: "{{ payload.collapse | default('') }}"
            alert:
              title: "{{ payload.title }}"
              body: "{{ payload.body }}"
              interruption_level: "{{ payload.level }}"
              category: "{{ payload.cat }}"
        """
    }

    @Test("titles, bodies, priorities, tags, click; a second alert with the same collapse id; a withdraw")
    func delivers() async throws {
        let ntfy = try await NtfyServer.make()
        let s = try await Scenario.start()
        let topic = "pb-\(UUID().uuidString.prefix(8))"
        let bridge = try InProcessBridge.start(yaml: s.yaml(Self.routes(s) + """

            outputs:
              - name: phones
                ntfy: {url: "\(ntfy.url(topic))"}
            """))
        try await s.waitUntilOnline()
        // Levels and categories as the display message example and Apple's documentation spell them.
        let sent: [(title: String, body: String, level: String, cat: String, priority: Int)] = [
            ("Doorbell", "Alice is at the door", "time-sensitive", "DOORBELL", 4),
            ("Water leak", "Kitchen sensor is wet", "critical", "LEAK", 5),
            ("Laundry", "The washer is done", "passive", "APPLIANCE", 2),
            ("Tür", "Grüße aus der Küche", "active", "DOOR", 3),
        ]
        for (i, m) in sent.enumerated() {
            let info = i == 0 ? #","url":"https://cam.example.com/front""# : ""
            try s.publish("alarm/\(i)", #"{"title":"\#(m.title)","body":"\#(m.body)","level":"\#(m.level)","cat":"\#(m.cat)"\#(info)}"#)
        }
        try await eventually("4 messages in ntfy", timeout: .seconds(20)) { try ntfy.messages(topic).count == 4 }
        let got = try ntfy.messages(topic)
        for m in sent {
            guard let n = got.first(where: { $0["title"]?.stringValue == m.title }) else {
                Issue.record("no message titled \(m.title) in \(got)")
                continue
            }
            #expect(n["message"] == .string(m.body))
            #expect(n["priority"] == .int(Int64(m.priority)))
            #expect(n["tags"] == .array([.string(m.cat)]))
        }
        #expect(got.first { $0["title"] == .string("Doorbell") }?["click"] == .string("https://cam.example.com/front"))
        #expect(got.first { $0["title"] == .string("Water leak") }?["click"] == nil)

        // The same collapse id twice: a server with sequence ids keeps the newer one under that id;
        // one without (Debian's 2.11) keeps both, as separate messages — the documented fallback.
        for body in ["first", "second"] {
            try s.publish("alarm/door", #"{"title":"Door","body":"\#(body)","level":"active","cat":"DOOR","collapse":"door-front"}"#)
            try await eventually("\(body) in ntfy", timeout: .seconds(20)) { try ntfy.messages(topic).contains { $0["message"] == .string(body) } }
        }
        let door = try ntfy.messages(topic).filter { $0["title"] == .string("Door") }
        let supports = door.contains { $0["sequence_id"] != nil }
        if supports {
            #expect(door.last?["sequence_id"] == .string("door-front"))
        } else {
            #expect(door.map { $0["message"] } == [.string("first"), .string("second")])
        }

        // A condition's withdraw: deleted by sequence id where the server can; skipped where not.
        let outputs = try #require(bridge.bridge.outputs)
        outputs.offer(OutputItem(withdrawal: Withdrawal(alertID: "a1", collapseID: "door-front", sourceTopic: s.input("alarm/door"), route: "alarm")))
        try await eventually("withdraw handled") { outputs.snapshots()[0].pending == 0 && outputs.snapshots()[0].skipped + outputs.snapshots()[0].delivered >= 7 }
        let stats = outputs.snapshots()[0]
        if supports {
            #expect(stats.delivered == 7)
        } else {
            #expect(stats.delivered == 6 && stats.skipped == 1)
            #expect(try ntfy.messages(topic).count == 6, "nothing deleted, nothing added")
        }
        Self.report(ntfy)
        try await bridge.stop()
        await ntfy.stop()
    }

    @Test("a token-protected topic: delivered with the token; refused (dead letter) without it")
    func protectedTopic() async throws {
        let ntfy = try await NtfyServer.make(protected: true)
        let token = try #require(ntfy.token)
        let tokenFile = try writeTempFile(token + "\n", name: "ntfy-token")
        let s = try await Scenario.start()
        let topic = "pb-\(UUID().uuidString.prefix(8))"
        let bridge = try InProcessBridge.start(yaml: s.yaml(Self.routes(s) + """

            outputs:
              - name: with-token
                ntfy: {url: "\(ntfy.url(topic))", token_file: "\(tokenFile)"}
              - name: anonymous
                ntfy: {url: "\(ntfy.url(topic))"}
            """))
        try await s.waitUntilOnline()
        // Reading without the token is refused by the server itself.
        #expect(throws: NtfyStatus.self) { try ntfy.messages(topic) }
        do { _ = try ntfy.messages(topic) } catch let e as NtfyStatus { #expect([401, 403].contains(e.status), "\(e)") }
        try s.publish("alarm/1", #"{"title":"Smoke","body":"Hallway","level":"critical","cat":"SMOKE"}"#)
        try await eventually("delivered with the token", timeout: .seconds(20)) { try ntfy.messages(topic, token: token).count == 1 }
        #expect(try ntfy.messages(topic, token: token)[0]["title"] == .string("Smoke"))
        // Generous: under load the refusal can come after a retried timeout.
        let dead = try await s.waitFor(s.dead("alarm/1"), timeout: .seconds(30))[0]
        let d = try JSONValue.parse(dead.payload)
        #expect(d["reason"] == .string("OutputRejected"))
        #expect(d["output"] == .string("anonymous"))
        #expect(d["status"] == .int(403) || d["status"] == .int(401), "\(d)")
        #expect(jsonString(d["detail"]).contains("\"http\""), "ntfy's JSON error: \(d)")
        #expect(!bridge.log.lines.contains { $0.contains(token) }, "the token never reaches the log")
        try await bridge.stop()
        await ntfy.stop()
    }

    @Test("a picture: uploaded to a server that takes uploads (ntfy serves the same bytes); a server without them gets its URL (X-Attach), learned once")
    func attachments() async throws {
        let uploads = try await NtfyServer.make(uploads: true)
        let links = try await NtfyServer.make()
        let s = try await Scenario.start()
        let topic = "pb-\(UUID().uuidString.prefix(8))"
        let bridge = try InProcessBridge.start(yaml: s.yaml("""
            routes:
              - name: door
                topic: \(s.ns)/in/door/event
                alert: {title: "Front door", body: "{{ payload.who }} is at the door"}
                attachments: [{identifier: snapshot, from_topic: "\(s.ns)/in/door/snapshot"}]
            attachments: {public_url: "https://pictures.example.com/pb"}
            outputs:
              - name: uploads
                ntfy: {url: "\(uploads.url(topic))"}
              - name: links
                ntfy: {url: "\(links.url(topic))"}
            """))
        try await s.waitUntilOnline()
        let png = OutputAttachmentTests.png
        try s.publish("door/snapshot", bytes: png)
        try await eventually("the snapshot kept") { bridge.bridge.attachmentSlot.service?.bytes.heldBytes ?? 0 > 0 }
        for (n, who) in ["Alice", "Bob"].enumerated() {
            try s.publish("door/event", #"{"who":"\#(who)"}"#)
            _ = try await s.waitFor(s.display("door/event"), count: n + 1)
            // Each alert on both servers before the next: the outputs send concurrently, and the
            // second is to find the refusal learned from the first one's answer.
            try await eventually("\(who)'s alert on both servers", timeout: .seconds(20)) {
                try uploads.messages(topic).count == n + 1 && links.messages(topic).count == n + 1
            }
        }
        let displays = try s.json(on: s.display("door/event"))
        let urls = displays.compactMap { $0["attachments"]?[0]?["url"]?.stringValue }
        #expect(urls.count == 2 && urls.allSatisfy { $0.hasPrefix("https://pictures.example.com/pb/attachments/") && $0.hasSuffix("/snapshot.png") })

        try await eventually("both alerts on both servers", timeout: .seconds(20)) {
            try uploads.messages(topic).count == 2 && links.messages(topic).count == 2
        }
        for (n, message) in try uploads.messages(topic).enumerated() {
            #expect(message["title"] == .string("Front door"))
            #expect(message["message"] == .string(["Alice", "Bob"][n] + " is at the door"))
            let attachment = try #require(message["attachment"])
            #expect(attachment["name"] == .string("snapshot.png"))
            #expect(attachment["type"] == .string("image/png"))
            #expect(attachment["size"] == .int(Int64(png.count)))
            // ntfy serves what was uploaded: the stored file's bytes.
            let url = try #require(attachment["url"]?.stringValue)
            #expect(url.hasPrefix("http://127.0.0.1:\(uploads.port)/file/"))
            let served = try loopbackHTTP(ServiceRequest(method: "GET", url: url))
            #expect(served.status == 200 && served.body == png)
        }
        for (n, message) in try links.messages(topic).enumerated() {
            #expect(message["message"] == .string(["Alice", "Bob"][n] + " is at the door"))
            #expect(message["attachment"]?["url"] == .string(urls[n]), "the bridge's own URL, as X-Attach")
            #expect(message["attachment"]?["name"] == .string("snapshot.png"))
        }
        // The refusal was learned from the first answer: the second alert went as a link at once.
        #expect(bridge.log.lines(containing: "output 'links': the ntfy server does not take uploads").count == 1)
        #expect(bridge.log.lines(containing: "output 'uploads': the ntfy server").isEmpty)
        let stats = try #require(bridge.bridge.outputs?.snapshots())
        #expect(stats.map(\.delivered) == [2, 2] && stats.map(\.failed) == [0, 0] && stats.map(\.retried) == [0, 0], "\(stats)")
        Self.report(uploads)
        try await bridge.stop()
        await uploads.stop()
        await links.stop()
    }

    static func report(_ ntfy: NtfyServer) {
        if let line = ntfy.versionLine { print("ntfy server: \(line)") }
    }
}
