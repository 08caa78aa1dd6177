import Testing
@testable import PushBridge

/// The APNs body of a Live Activity push. Keys as Apple's "Starting and updating Live
/// Activities with ActivityKit push notifications" shows them: `aps.timestamp`,
/// `aps.event` (start / update / end), `aps.content-state`, `aps.stale-date`,
/// `aps.dismissal-date`, with `apns-push-type: liveactivity`.
@Suite struct LiveActivityBodyTests {
    func request(_ update: LiveActivityUpdate) -> NotificationRequest {
        var r = NotificationRequest(id: "6f2a7c1e-0b7d-4c2e-9a51-2f0c3d4e5a6b", pushType: .liveactivity, priority: 10)
        r.content.title = "Water leak"
        r.liveActivity = update
        return r
    }

    @Test func start() {
        var u = LiveActivityUpdate(event: .start, timestamp: 1_800_000_000, contentState: ["battery": .int(100)])
        u.staleDate = 1_800_003_600
        let aps = request(u).apnsBody["aps"]
        #expect(aps == .object(["alert": .object(["title": .string("Water leak")]), "event": .string("start"),
                                "timestamp": .int(1_800_000_000), "content-state": .object(["battery": .int(100)]),
                                "stale-date": .int(1_800_003_600)]))
        #expect(request(u).apnsHeaders.contains { $0.name == "apns-push-type" && $0.value == "liveactivity" })
    }

    @Test func update() {
        let u = LiveActivityUpdate(event: .update, timestamp: 1_800_000_060, contentState: ["battery": .int(97)])
        let aps = request(u).apnsBody["aps"]
        #expect(aps?["event"] == .string("update") && aps?["timestamp"] == .int(1_800_000_060))
        #expect(aps?["content-state"] == .object(["battery": .int(97)]))
        #expect(aps?["stale-date"] == nil && aps?["dismissal-date"] == nil)
    }

    @Test func end() {
        var u = LiveActivityUpdate(event: .end, timestamp: 1_800_000_100, contentState: [:])
        u.dismissalDate = 1_800_014_500
        let aps = request(u).apnsBody["aps"]
        #expect(aps?["event"] == .string("end") && aps?["dismissal-date"] == .int(1_800_014_500))
        #expect(aps?["content-state"] == .object([:]) && aps?["timestamp"] == .int(1_800_000_100))
    }

    @Test func anAlertHasNoLiveActivityKeys() {
        let r = NotificationRequest(id: "6f2a7c1e-0b7d-4c2e-9a51-2f0c3d4e5a6b", pushType: .alert, priority: 10)
        #expect(r.apnsBody["aps"] == .object([:]))
    }
}
