import Foundation
import Testing
@testable import PushBridge

/// Attachments end to end on a real mosquitto: bytes from a topic (before and after the
/// alert, and the bad ones), bytes fetched from a loopback HTTP server of the tests' own
/// (redirects, errors, slow, silent and endless bodies, a value with `../`), each alert
/// delivered within the wait with its reason recorded and counted.
@Suite("Integration: attachments", .serialized)
struct AttachmentFlowTests {
    static let png: [UInt8] = AttachmentGatherTests.png

    static func body(_ s: Scenario, media: MediaServer? = nil, wait: String = "1s", extra: String = "") -> String {
        """
        routes:
          - name: door
            topic: \(s.ns)/in/door
            alert: {title: Door, body: "{{ payload.who }}"}
            attachments:
              - identifier: snapshot
                from_topic: "\(s.ns)/cam/{{ payload.cam }}/snapshot"
                max_age: 1m
          - name: fetch
            topic: \(s.ns)/in/fetch
            alert: {title: Fetch, body: "{{ payload.kind }}"}
            attachments:
              - identifier: picture
                url: "\(media?.base ?? "http://127.0.0.1:9")/{{ payload.kind }}/{{ payload.arg }}"
        attachments:
          wait: \(wait)
        \(extra)
        """
    }

    /// The display message of the `n`-th alert on `<ns>/in/<name>`.
    static func display(_ s: Scenario, _ name: String, count n: Int, timeout: Duration = .seconds(10)) async throws -> JSONValue {
        let messages = try await s.waitFor(s.display(name), count: n, timeout: timeout)
        return try JSONValue.parse(messages[n - 1].payload)
    }

    static func attachments(_ display: JSONValue) -> [JSONValue] {
        if case .array(let list)? = display["attachments"] { return list }
        return []
    }

    @Test("from_topic: bytes before the alert and within the wait after it are attached; the stored file is the bytes")
    func fromTopic() async throws {
        let s = try await Scenario.start()
        let bridge = try InProcessBridge.start(yaml: s.yaml(Self.body(s, wait: "3s")))
        try await s.waitUntilOnline()
        _ = try s.observer.client.publish(topic: "\(s.ns)/cam/front/snapshot", payload: Self.png, qos: 1, retain: true, userProperties: [])
        try await Task.sleep(for: .milliseconds(300))
        try s.publish("door", #"{"who":"Alice","cam":"front"}"#)
        let first = try await Self.display(s, "door", count: 1)
        let a = try #require(Self.attachments(first).first)
        #expect(a["identifier"] == .string("snapshot") && a["type"] == .string("image/png") && a["size"] == .int(Int64(Self.png.count)))
        let stored = try #require(bridge.bridge.attachmentSlot.service?.store)
        #expect(stored.counts.files == 1)
        // The alert comes first, the picture 500 ms later: the alert waits for it.
        try s.publish("door", #"{"who":"Bob","cam":"back"}"#)
        try await Task.sleep(for: .milliseconds(500))
        #expect(s.messages(on: s.display("door")).count == 1, "the alert waits for its picture")
        _ = try s.observer.client.publish(topic: "\(s.ns)/cam/back/snapshot", payload: Self.png, qos: 0, retain: false, userProperties: [])
        let second = try await Self.display(s, "door", count: 2)
        #expect(Self.attachments(second).count == 1)
        // Messages on the snapshot topics are no alerts: not received, not unrouted.
        let stats = try await s.waitForStats("two delivered") { total($0, "delivered") == 2 }
        #expect(total(stats, "unrouted") == 0 && total(stats, "received") == 2)
        try await bridge.stop()
    }

    @Test("a retained picture replayed at subscribe is of unknown age: never fresh; the camera's next one is attached")
    func retainedIsNotFresh() async throws {
        let s = try await Scenario.start()
        _ = try s.observer.client.publish(topic: "\(s.ns)/cam/front/snapshot", payload: Self.png, qos: 1, retain: true, userProperties: [])
        try await Task.sleep(for: .milliseconds(200))
        let bridge = try InProcessBridge.start(yaml: s.yaml(Self.body(s, wait: "1s")))
        try await s.waitUntilOnline()
        try await Task.sleep(for: .milliseconds(300))
        try s.publish("door", #"{"who":"Old","cam":"front"}"#)
        #expect(Self.attachments(try await Self.display(s, "door", count: 1)).isEmpty)
        try s.publish("door", #"{"who":"New","cam":"front"}"#)
        try await Task.sleep(for: .milliseconds(200))
        _ = try s.observer.client.publish(topic: "\(s.ns)/cam/front/snapshot", payload: Self.png, qos: 1, retain: true, userProperties: [])
        #expect(Self.attachments(try await Self.display(s, "door", count: 2)).count == 1)
        try await bridge.stop()
    }

    @Test("bad bytes on a snapshot topic: text, empty, over the largest limit — delivered without, each reason counted")
    func badBytes() async throws {
        let s = try await Scenario.start()
        let bridge = try InProcessBridge.start(yaml: s.yaml(Self.body(s, wait: "500ms", extra: "  max_bytes: {image: 1KB, audio: 1KB, video: 2KB}")))
        try await s.waitUntilOnline()
        let topic = "\(s.ns)/cam/x/snapshot"
        let cases: [([UInt8], String)] = [
            (Array("{\"not\":\"a picture\"}".utf8), "UnsupportedType"),
            ([], "Empty"),
            ([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0, count: 1500), "TooLarge"),  // a JPEG over the image limit
            ([UInt8](repeating: 0x41, count: 3_000_000), "TooLarge"),                      // over every limit: not kept
        ]
        for (n, (bytes, reason)) in cases.enumerated() {
            _ = try s.observer.client.publish(topic: topic, payload: bytes, qos: 1, retain: false, userProperties: [])
            try await Task.sleep(for: .milliseconds(200))
            try s.publish("door", #"{"who":"n\#(n)","cam":"x"}"#)
            let d = try await Self.display(s, "door", count: n + 1)
            #expect(Self.attachments(d).isEmpty, "\(reason): \(d)")
            _ = reason
        }
        let stats = try await s.waitForStats("four failures") {
            $0["routes"]?["door"]?["attachment_failures"]?["TooLarge"] == .int(2)
        }
        #expect(stats["routes"]?["door"]?["attachment_failures"] == .object(["UnsupportedType": .int(1), "Empty": .int(1), "TooLarge": .int(2)]))
        #expect(total(stats, "delivered") == 4)
        let held = try #require(bridge.bridge.attachmentSlot.service).bytes.heldBytes
        #expect(held < 10_000, "a body over every limit is not kept (\(held) bytes held)")
        try await bridge.stop()
    }

    @Test("url: fetched with redirects; errors, loops, slow, silent and endless bodies end as FetchFailed within the wait")
    func fetch() async throws {
        let media = try await MediaServer.start()
        defer { Task { await media.stop() } }
        let s = try await Scenario.start()
        let bridge = try InProcessBridge.start(yaml: s.yaml(Self.body(s, media: media, wait: "2s")))
        try await s.waitUntilOnline()
        let cases: [(kind: String, arg: String, attached: Bool, reason: String?)] = [
            ("png", "", true, nil),
            ("redirect", "3", true, nil),
            ("redirect", "5", false, "FetchFailed"),
            ("loop", "", false, "FetchFailed"),
            ("status", "404", false, "FetchFailed"),
            ("status", "500", false, "FetchFailed"),
            ("text", "", false, "UnsupportedType"),
            ("empty", "", false, "Empty"),
            ("slow", "10", false, "FetchFailed"),
            ("silent", "", false, "FetchFailed"),
            ("endless", "", false, "FetchFailed"),
            ("jpeg", "../../png", false, "FetchFailed"),
        ]
        for (n, c) in cases.enumerated() {
            let started = ContinuousClock.now
            try s.publish("fetch", #"{"kind":"\#(c.kind)","arg":"\#(c.arg)"}"#)
            let d = try await Self.display(s, "fetch", count: n + 1)
            let took = ContinuousClock.now - started
            #expect(took < .seconds(4), "\(c.kind)/\(c.arg) took \(took): the wait is 2s")
            #expect(Self.attachments(d).isEmpty != c.attached, "\(c.kind)/\(c.arg): \(d)")
        }
        let stats = try await s.waitForStats("all counted") { total($0, "delivered") == Int64(cases.count) }
        let failures = stats["routes"]?["fetch"]?["attachment_failures"]
        #expect(failures?["FetchFailed"] == .int(8) && failures?["UnsupportedType"] == .int(1) && failures?["Empty"] == .int(1),
                "\(failures?.jsonText ?? "none")")
        // The value with "../" stayed in its segment: the server saw it percent-encoded.
        let paths = try media.paths()
        #expect(paths.contains("/jpeg/..%2F..%2Fpng"), "\(paths)")
        #expect(!paths.contains("/png/") || paths.filter { $0 == "/png/" }.count == 1, "\(paths)")
        #expect(paths.filter { $0 == "/loop" }.count <= 4, "at most 3 redirects followed: \(paths.filter { $0 == "/loop" }.count)")
        try await bridge.stop()
    }

    @Test("url with token_file: sent as a bearer token, never logged")
    func token() async throws {
        let media = try await MediaServer.start()
        defer { Task { await media.stop() } }
        let s = try await Scenario.start()
        let file = try writeTempFile("secret-token\n", name: "token")
        let yaml = s.yaml("""
            routes:
              - name: auth
                topic: \(s.ns)/in/auth
                alert: {title: Auth}
                attachments:
                  - {identifier: pic, url: "\(media.base)/auth", token_file: \(file)}
            """)
        let bridge = try InProcessBridge.start(yaml: yaml)
        try await s.waitUntilOnline()
        try s.publish("auth", "{}")
        let d = try await Self.display(s, "auth", count: 1)
        #expect(Self.attachments(d).first?["type"] == .string("image/jpeg"))
        #expect(try media.headers(of: "/auth").first?["Authorization"] == .string("Bearer secret-token"))
        try await bridge.stop()
        #expect(!bridge.log.lines.joined().contains("secret-token"))
    }
}
