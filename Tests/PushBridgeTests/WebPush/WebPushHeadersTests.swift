import Foundation
import Testing
@testable import PushBridge

/// `TTL`, `Urgency` and `Topic`, and the request built from them.
@Suite("Web Push headers")
struct WebPushHeadersTests {
    @Test func ttl() {
        #expect(WebPushHeaders.ttl(expiration: nil, now: 1000) == WebPushHeaders.defaultTTL)
        #expect(WebPushHeaders.defaultTTL == 86_400)
        #expect(WebPushHeaders.ttl(expiration: 0, now: 1000) == 0, "apns-expiration 0: now or never")
        #expect(WebPushHeaders.ttl(expiration: 1600, now: 1000) == 600)
        #expect(WebPushHeaders.ttl(expiration: 1000, now: 1000) == 0)
        #expect(WebPushHeaders.ttl(expiration: 900, now: 1000) == 0, "expired: never negative")
        #expect(WebPushHeaders.ttl(expiration: Int64.max, now: 0) == Int(Int32.max))
    }

    @Test(arguments: [("passive", "very-low"), ("active", "normal"), ("time-sensitive", "high"), ("critical", "high")])
    func urgency(level: String, urgency: String) {
        #expect(WebPushHeaders.urgency(interruptionLevel: level) == urgency)
    }

    @Test func urgencyWithoutALevelIsNormal() {
        #expect(WebPushHeaders.urgency(interruptionLevel: nil) == "normal")
        #expect(WebPushHeaders.urgency(interruptionLevel: "loud") == "normal")
    }

    @Test func topic() async throws {
        #expect(WebPushHeaders.topic(collapseID: nil) == nil)
        #expect(WebPushHeaders.topic(collapseID: "") == nil)
        #expect(WebPushHeaders.topic(collapseID: "doorbell-front") == "doorbell-front")
        #expect(WebPushHeaders.topic(collapseID: "a_B-9") == "a_B-9")
        let max = String(repeating: "x", count: 32)
        #expect(WebPushHeaders.topic(collapseID: max) == max)
        // Too long, or characters outside base64url: the first 24 bytes of SHA-256, base64url (32 characters).
        for id in [String(repeating: "x", count: 33), "leak-zigbee2mqtt/kitchen", "doorbell front", "tür"] {
            let topic = try! #require(WebPushHeaders.topic(collapseID: id))
            #expect(topic.count == 32 && topic.allSatisfy(Base64URL.isAlphabet))
            #expect(topic == Base64URL.encode(Digests.sha256(Array(id.utf8)).prefix(24)))
        }
        // SHA-256("leak-zigbee2mqtt/kitchen") checked with `printf %s … | openssl dgst -sha256 -binary | head -c 24 | basenc --base64url`.
        #expect(WebPushHeaders.topic(collapseID: "leak-zigbee2mqtt/kitchen") == (try await Self.opensslTopic()))
    }

    static func opensslTopic() async throws -> String {
        let r = try await ManagedProcess.run("/bin/sh", [
            "-c", "printf %s leak-zigbee2mqtt/kitchen | openssl dgst -sha256 -binary | head -c 24 | basenc --base64url"])
        #expect(r.status == 0 && r.exitedNormally, "\(r.stderr)")
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "=", with: "")
    }

    @Test func theRequest() throws {
        let userAgent = try P256Key.generate()
        let auth = try Digests.random(16)
        let subscription = WebPushSubscription(endpoint: "https://push.example.net/s/1", p256dh: userAgent.publicPoint,
                                               auth: auth, expirationTime: nil)
        let vapid = VAPIDKey(key: try P256Key.generate())
        let now = Date(timeIntervalSince1970: 2_000_000_000)
        let payload = Array(#"{"type":"alert","title":"Doorbell"}"#.utf8)
        let request = try WebPushRequest.build(
            subscription: subscription, payload: payload,
            options: .init(vapid: vapid, subject: "mailto:ops@example.com", expiration: 2_000_000_300,
                           interruptionLevel: "time-sensitive", collapseID: "doorbell-front"), now: now)
        #expect(request.url == "https://push.example.net/s/1")
        #expect(request.headers.map(\.name) == ["TTL", "Urgency", "Topic", "Content-Encoding", "Content-Type", "Authorization"])
        #expect(request.header("ttl") == "300")
        #expect(request.header("Urgency") == "high")
        #expect(request.header("Topic") == "doorbell-front")
        #expect(request.header("Content-Encoding") == "aes128gcm")
        #expect(request.header("Content-Type") == "application/octet-stream")
        #expect(request.header("Authorization")?.hasSuffix(", k=\(vapid.publicKey)") == true)
        #expect(try PayloadEncryption.decrypt(request.body, privateKey: userAgent, auth: auth) == payload)
        let plain = try WebPushRequest.build(subscription: subscription, payload: payload,
                                             options: .init(vapid: vapid, subject: "mailto:ops@example.com"), now: now)
        #expect(plain.header("Topic") == nil && plain.header("Urgency") == "normal" && plain.header("TTL") == "86400")
    }

    @Test(arguments: [(200, WebPushRequest.Verdict.accepted), (201, .accepted), (202, .accepted), (404, .subscriptionGone),
                      (410, .subscriptionGone), (429, .retry), (500, .retry), (503, .retry), (400, .rejected),
                      (401, .rejected), (403, .rejected), (413, .rejected), (301, .rejected)])
    func verdicts(status: Int, verdict: WebPushRequest.Verdict) {
        #expect(WebPushRequest.verdict(status: status) == verdict)
    }
}
