import Foundation
import Testing
@testable import PushBridge

/// Web Push subscriptions of people end to end: a real mosquitto, the bridge in process with its
/// subscription API, and integration/webpush/receiver.py as the push service with three
/// browsers (alice's, bob's and one of nobody). Presence from Home Assistant statestream payloads.
@Suite("Integration: Web Push subscriptions of people", .serialized)
struct WebPushPersonFlowTests {
    let push = WebPushOutputTests()

    @Test("audience home reaches the subscriptions of the people at home and those of nobody; a list, its people")
    func subscriptionsFollowTheAudience() async throws {
        try await push.receiverTests.withReceiver { receiver in
            let s = try await Scenario.start()
            let dir = try makeTempDirectory()
            try (WebPushOutputTests.token + "\n").write(toFile: dir + "/token", atomically: true, encoding: .utf8)
            let http = try LoopbackPorts.free()
            let yaml = brokerSection(s.broker, clientID: uniqueName("wpp")) + """
                display: {topic: "\(s.ns)/out/{{ topic }}", format: json}
                journal: {path: \(dir)}
                monitoring: {status_topic: \(s.ns)/status, http: "127.0.0.1:\(http)", log_level: debug}
                routes:
                  - {name: doorbell, topic: \(s.ns)/in/doorbell, audience: home, alert: {title: "{{ payload.t }}"}}
                  - {name: for-bob, topic: \(s.ns)/in/bob, audience: [bob], alert: {title: "{{ payload.t }}"}}
                outputs:
                  - name: browsers
                    webpush: {vapid_key_file: \(dir)/vapid.pem, subject: "mailto:ops@example.com", subscribe_token_file: \(dir)/token}
                people:
                  - {name: alice, outputs: [browsers], presence: {topic: \(s.ns)/homeassistant/person/alice/state, home: 'raw == "home"'}}
                  - {name: bob, outputs: [browsers], presence: {topic: \(s.ns)/homeassistant/person/bob/state, home: 'raw == "home"'}}
                """
            let bridge = try InProcessBridge.start(yaml: yaml)
            try await s.waitUntilOnline()
            let setup = WebPushOutputTests.Setup(s: s, dir: dir, http: http, bridge: bridge)
            let key = try #require(try JSONValue.parse(try await push.curl([setup.base + "/api/webpush/vapid-public-key"]).1)["public_key"]?.stringValue)
            for (path, person) in [("/push/alice", "alice"), ("/push/bob", "bob"), ("/push/shared", nil)] {
                var subscription = try JSONValue.parse(try await push.browser(receiver, path: path, answers: [201], key: key))
                if let person, case .object(var o) = subscription { o["person"] = .string(person); subscription = .object(o) }
                var bytes: [UInt8] = []
                subscription.write(into: &bytes)
                #expect(try await push.subscribe(setup, bytes, token: WebPushOutputTests.token) == 201)
            }
            try s.observer.publish("\(s.ns)/homeassistant/person/alice/state", "home")
            try s.observer.publish("\(s.ns)/homeassistant/person/bob/state", "not_home")
            try await eventually("alice home, bob away") {
                bridge.bridge.people?.board.entries(at: bridge.bridge.people!.wall()).map(\.state) == [.home, .away]
            }
            try s.publish("doorbell", #"{"t":"Door"}"#)
            try s.publish("bob", #"{"t":"For bob"}"#)
            try await push.until("the pushes") {
                let n = try await push.counts(receiver)
                return n["/push/alice"] == 1 && n["/push/bob"] == 1 && n["/push/shared"] == 2
            }
            let outputs = try #require(bridge.bridge.outputs)
            try await eventually("idle") { outputs.snapshots().allSatisfy { $0.pending == 0 } }
            func titles(_ path: String) async throws -> [String] {
                try await push.records(receiver, path).compactMap { $0["payload"]?.stringValue.flatMap { try? JSONValue.parse($0) }?["title"]?.stringValue }
            }
            #expect(try await titles("/push/alice") == ["Door"])
            #expect(try await titles("/push/bob") == ["For bob"])
            #expect(try await titles("/push/shared").sorted() == ["Door", "For bob"])
            try await bridge.stop()
        }
    }
}
