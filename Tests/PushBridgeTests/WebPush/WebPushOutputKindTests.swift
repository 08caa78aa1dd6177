import Foundation
import Testing
@testable import PushBridge

/// `WebPushOutput` as an `OutputKind`, without the network: targets, requests (alerts and
/// withdraws), and what each answer does to the delivery and the subscription.
@Suite struct WebPushOutputKindTests {
    static func output() throws -> (WebPushOutput, MemorySubscriptionStore) {
        let store = MemorySubscriptionStore()
        for host in ["a", "b"] {
            let browser = try P256Key.generate()
            _ = store.upsert(WebPushSubscription(endpoint: "https://\(host).push.example/sub", p256dh: browser.publicPoint,
                                                 auth: Array(repeating: 7, count: 16), expirationTime: nil))
        }
        let config = WebPushConfig(vapidKeyFile: "/unused.pem", subject: "mailto:ops@example.com",
                                   subscribeTokenFile: "/unused", subscribeToken: "t")
        return (WebPushOutput(name: "browsers", config: config, store: store, vapid: VAPIDKey(key: try P256Key.generate()),
                              logger: LogCollector().logger(level: .debug)), store)
    }

    static let alert = OutputItem(alertID: "a1", route: "doorbell", displayJSON: Array(
        #"{"id":"a1","route":"doorbell","collapse_id":"doorbell-front","title":"Doorbell","body":"Alice is at the door","interruption_level":"passive","expiration":0}"#.utf8))

    @Test func targetsAreTheSubscriptionsAndRequestsAreBuiltPerTarget() throws {
        let (output, store) = try Self.output()
        let targets = output.targets(for: Self.alert)
        #expect(targets == ["https://a.push.example/sub", "https://b.push.example/sub"])
        let message = try #require(OutputMessage(json: Self.alert.json))
        let r = try #require(output.request(for: message, target: targets[1]))
        #expect(r.method == "POST" && r.url == targets[1])
        let headers = Dictionary(r.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(headers["TTL"] == "0", "expiration 0: now or never")
        #expect(headers["Urgency"] == "very-low")
        #expect(headers["Topic"] == "doorbell-front")
        #expect(headers["Content-Encoding"] == "aes128gcm")
        #expect(headers["Authorization"]?.hasPrefix("vapid t=") == true)
        store.remove(endpoint: targets[1])
        #expect(output.request(for: message, target: targets[1]) == nil, "a subscription gone meanwhile is skipped")
    }

    @Test func withdrawsMapToTheWithdrawPayload() throws {
        let (output, _) = try Self.output()
        let withdraw = OutputItem(withdrawal: Withdrawal(alertID: "a1", collapseID: "doorbell-front", sourceTopic: "home/front/doorbell", route: "doorbell"))
        let m = try #require(OutputMessage(json: withdraw.json))
        let r = try #require(output.request(for: m, target: "https://a.push.example/sub"))
        #expect(r.headers.first { $0.name == "Topic" }?.value == "doorbell-front")
        let noTag = OutputItem(withdrawal: Withdrawal(alertID: "a2", collapseID: "", sourceTopic: "t", route: "doorbell"))
        #expect(output.request(for: try #require(OutputMessage(json: noTag.json)), target: "https://a.push.example/sub") == nil,
                "without a collapse id there is nothing to close")
    }

    @Test func answers() throws {
        let (output, store) = try Self.output()
        let m = try #require(OutputMessage(json: Self.alert.json))
        let a = "https://a.push.example/sub", b = "https://b.push.example/sub"
        func answer(_ status: Int, _ headers: [String: String] = [:], target: String = a) -> DeliveryVerdict {
            output.verdict(for: ServiceResponse(status: status, headers: headers, body: [], version: "1.1"),
                           to: ServiceRequest(method: "POST", url: target), message: m, target: target)
        }
        #expect(answer(201) == .delivered)
        #expect(answer(429, ["retry-after": "7"]) == .retry(after: 7))
        #expect(answer(503) == .retry(after: nil))
        #expect(answer(400) == .rejected)
        #expect(answer(403) == .rejected)
        #expect(store.all().count == 2)
        guard case .skipped = answer(410, target: b) else { Issue.record("410 not skipped"); return }
        #expect(store.all().map(\.endpoint) == [a])
        guard case .skipped = answer(404) else { Issue.record("404 not skipped"); return }
        #expect(store.all().isEmpty)
    }

    @Test func aRetryAfterWaitOutlastsARecoveredService() {
        var q = WorkQueue()
        var asked = PendingDelivery(row: 1, key: "k", target: "a", item: [], created: 0)
        asked.due = 100; asked.notBefore = 100
        var backoff = PendingDelivery(row: 2, key: "k", target: "b", item: [], created: 0)
        backoff.due = 100
        q.wait(asked); q.wait(backoff)
        q.releaseBackoffs(now: 10)
        #expect(q.popReady()?.target == "b")
        #expect(q.popReady() == nil)
        q.releaseDue(now: 100)
        #expect(q.popReady()?.target == "a")
    }
}
