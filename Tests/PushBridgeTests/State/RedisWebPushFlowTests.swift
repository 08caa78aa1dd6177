import Foundation
import Testing
@testable import PushBridge

/// Two replicas with `share:` and `state.redis` and one `webpush` output (one VAPID key): a
/// browser subscribed through one replica's API gets the alerts both replicas send.
@Suite("Integration: Web Push subscriptions shared on Redis", .serialized)
struct RedisWebPushFlowTests {
    let wp = WebPushOutputTests()

    @Test("a browser subscribed through replica A gets every alert, those replica B sends included")
    func subscribedThroughOneDeliveredByBoth() async throws {
        try await wp.receiverTests.withReceiver { receiver in
            let redis = try TestRedis()
            let s = try await Scenario.start()
            let dir = try makeTempDirectory()
            try (WebPushOutputTests.token + "\n").write(toFile: dir + "/token", atomically: true, encoding: .utf8)
            let prefix = uniqueName("pb") + ":"
            func yaml(_ name: String, http: Int) -> String {
                brokerSection(s.broker, clientID: uniqueName(name)) + """
                    display: {topic: "\(s.ns)/out/{{ topic }}", format: json}
                    journal: {path: \(dir)/journal-\(name)}
                    state:
                      redis: {url: "redis://127.0.0.1:\(redis.port)/0", prefix: "\(prefix)", claim_after: 2s}
                    monitoring:
                      status_topic: null
                      http: "127.0.0.1:\(http)"
                    routes:
                      - name: doorbell
                        topic: \(s.ns)/in/+/doorbell
                        qos: 1
                        share: pushbridge
                        alert: {title: Doorbell, body: "{{ payload.who }} is at the door"}
                    outputs:
                      - name: browsers
                        webpush: {vapid_key_file: \(dir)/vapid.pem, subject: "mailto:ops@example.com", subscribe_token_file: \(dir)/token}
                    """
            }
            let httpA = try LoopbackPorts.free(), httpB = try LoopbackPorts.free()
            let a = try InProcessBridge.start(yaml: yaml("wp-a", http: httpA))
            let b = try InProcessBridge.start(yaml: yaml("wp-b", http: httpB))
            try await a.waitUntilSubscribed(on: s.broker)
            try await b.waitUntilSubscribed(on: s.broker)
            let (_, keyBody) = try await wp.curl(["http://127.0.0.1:\(httpA)/api/webpush/vapid-public-key"])
            let key = try #require(try JSONValue.parse(keyBody)["public_key"]?.stringValue)
            let phone = try await wp.browser(receiver, path: "/push/phone", answers: [201], key: key)
            let file = dir + "/phone.json"
            try Data(phone).write(to: URL(fileURLWithPath: file))
            let (status, _) = try await wp.curl(["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", "@" + file,
                                                 "-H", "Authorization: Bearer \(WebPushOutputTests.token)",
                                                 "http://127.0.0.1:\(httpA)" + WebPushEndpoints.subscriptionsPath])
            #expect(status == 201)
            #expect(try b.bridge.outputs?.webPush?.fanOut.store.all().map(\.endpoint).count == 1, "B sees A's subscription")
            let count = 8
            for n in 0..<count { try s.publish("d\(n)/doorbell", #"{"who":"visitor \#(n)"}"#) }
            try await wp.until("\(count) pushes to the phone") { try await wp.records(receiver, "/push/phone").count >= count }
            let delivered = [a, b].map { $0.bridge.outputs?.snapshots().first?.delivered ?? 0 }
            #expect(delivered.reduce(0, +) == count, "\(delivered)")
            #expect(delivered.allSatisfy { $0 > 0 }, "both replicas sent: \(delivered)")
            try await a.stop()
            try await b.stop()
        }
    }
}
