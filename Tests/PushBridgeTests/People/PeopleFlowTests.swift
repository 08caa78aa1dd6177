import Foundation
import Testing
@testable import PushBridge

/// People end to end: presence from OwnTracks and Home Assistant messages through a real
/// mosquitto, audiences choosing among real ntfy topics, `when_nobody: hold`, `people_home`
/// in a filter, the stats, `/metrics` and `GET /api/people`.
@Suite("Integration: people and presence", .serialized)
struct PeopleFlowTests {
    static func routes(_ s: Scenario) -> String {
        """
        - {name: doorbell, topic: \(s.ns)/in/doorbell, audience: home, when_nobody: hold, alert: {title: "{{ payload.t }}"}}
        - {name: alarm, topic: \(s.ns)/in/alarm, audience: away, when_nobody: none, alert: {title: "{{ payload.t }}"}}
        - {name: for-bob, topic: \(s.ns)/in/bob, audience: [bob], alert: {title: "{{ payload.t }}"}}
        - {name: motion, topic: \(s.ns)/in/motion, alert: {title: "{{ payload.t }} ({{ people_home }} home, alice {{ presence.alice }})"}}
        """
    }

    static let filters = """
        entitlements: [com.apple.developer.usernotifications.filtering]
        extension:
          filters:
            - {name: quiet-when-home, suppress: 'people_home > 0', routes: [motion]}
        """

    @Test("audience home, away and a list; unknown presence counts as matching; people_home silences motion")
    func audiences() async throws {
        let p = try await PeopleSetup.make()
        let s = p.s
        let bridge = try InProcessBridge.start(yaml: p.yaml(routes: Self.routes(s), filters: Self.filters))
        try await s.waitUntilOnline()
        // Nobody has reported yet: unknown, so everyone matches.
        try s.publish("doorbell", #"{"t":"Door 1"}"#)
        try s.publish("motion", #"{"t":"Motion 1"}"#)
        for who in ["alice", "bob", "hall"] { try await p.waitFor(who, "Motion 1 (0 home, alice )") }

        try p.alice(home: true)
        try p.bob("not_home")
        try await p.waitForPresence(bridge.bridge, "alice", .home)
        try await p.waitForPresence(bridge.bridge, "bob", .away)
        try s.publish("doorbell", #"{"t":"Door 2"}"#)   // home: alice
        try s.publish("alarm", #"{"t":"Alarm 1"}"#)     // away: bob
        try s.publish("bob", #"{"t":"Bob 1"}"#)         // [bob]
        try s.publish("motion", #"{"t":"Motion 2"}"#)   // someone is home: suppressed
        _ = try await s.waitFor(s.display("bob"))
        try p.alice(home: false)
        try await p.waitForPresence(bridge.bridge, "alice", .away)
        try s.publish("motion", #"{"t":"Motion 3"}"#)
        for who in ["alice", "bob", "hall"] { try await p.waitFor(who, "Motion 3 (0 home, alice false)") }
        try await p.settle(bridge.bridge)

        #expect(try p.titles("alice").sorted() == ["Door 1", "Motion 1 (0 home, alice )", "Door 2", "Motion 3 (0 home, alice false)"].sorted(), "\((try? p.titles("alice")) ?? [])")
        #expect(try p.titles("bob").sorted() == ["Door 1", "Motion 1 (0 home, alice )", "Alarm 1", "Bob 1", "Motion 3 (0 home, alice false)"].sorted(), "\((try? p.titles("bob")) ?? [])")
        #expect(try p.titles("hall").sorted() == ["Door 1", "Motion 1 (0 home, alice )", "Door 2", "Alarm 1", "Bob 1", "Motion 3 (0 home, alice false)"].sorted(), "\((try? p.titles("hall")) ?? [])")
        #expect(s.messages(on: s.display("motion")).count == 2, "the display topic never got the suppressed one")
        // The display topic gets every delivered alert, whatever the audience.
        #expect(s.messages(on: s.display("alarm")).count == 1)
        try await bridge.stop()
        try await p.stop()
    }

    @Test("when_nobody: hold with 1 held, then with 5 held (3 one by one and 1 summary), delivered when someone arrives home; stats, metrics, /api/people")
    func holdUntilHome() async throws {
        let p = try await PeopleSetup.make()
        let s = p.s
        let bridge = try InProcessBridge.start(yaml: p.yaml(routes: Self.routes(s)))
        try await s.waitUntilOnline()
        try await p.bothAway(bridge.bridge)

        // One held: the hall (nobody's) gets it now, the people when bob arrives.
        try s.publish("doorbell", #"{"t":"Parcel"}"#)
        try await p.waitFor("hall", "Parcel")
        try await p.settle(bridge.bridge)
        #expect(try p.titles("bob").isEmpty && p.titles("alice").isEmpty)
        try p.bob("home")
        try await p.waitFor("bob", "Parcel")

        // Five held: bob leaves; then alice arrives (bob is still away: only she gets them).
        try p.bob("not_home")
        try await p.waitForPresence(bridge.bridge, "bob", .away)
        for n in 1...5 { try s.publish("doorbell", #"{"t":"Ring \#(n)"}"#) }
        try await p.waitFor("hall", "Ring 5")
        try p.alice(home: true)
        try await p.waitFor("alice", "Ring 5")
        try await p.settle(bridge.bridge)
        let alice = try p.ntfy.messages(p.ntfyTopic("alice"))
        #expect(alice.compactMap { $0["title"]?.stringValue }.sorted() == ["2 more: doorbell", "Ring 3", "Ring 4", "Ring 5"].sorted())
        #expect(alice.first { $0["title"] == .string("2 more: doorbell") }?["message"] == .string("Ring 1, Ring 2"))
        #expect(try p.titles("bob").sorted() == ["Parcel"].sorted(), "\((try? p.titles("bob")) ?? [])")
        #expect(try p.titles("hall").sorted() == ["Parcel", "Ring 1", "Ring 2", "Ring 3", "Ring 4", "Ring 5"].sorted(), "\((try? p.titles("hall")) ?? [])")

        // The stats, /metrics and /api/people.
        let stats = try JSONValue.parse(bridge.bridge.snapshot().json())
        #expect(stats["routes"]?["doorbell"]?["held"] == .int(6))
        #expect(stats["routes"]?["doorbell"]?["held_delivered"] == .int(6))
        #expect(stats["people"]?["alice"]?["presence"] == .string("home"))
        #expect(stats["people"]?["bob"]?["presence"] == .string("away"))
        #expect(stats["people"]?["bob"]?["since"]?.stringValue?.hasSuffix("Z") == true)
        let metrics = try await p.get("/metrics")
        #expect(metrics.contains(#"pushbridge_person_presence{person="alice",presence="home"} 1"#))
        #expect(metrics.contains(#"pushbridge_person_presence{person="alice",presence="away"} 0"#))
        #expect(metrics.contains(#"pushbridge_person_presence_since_seconds{person="bob"} "#))
        #expect(metrics.contains(#"pushbridge_held_alerts_total{route="doorbell",result="held"} 6"#))
        let people = try JSONValue.parse(Array(try await p.get("/api/people").utf8))
        #expect(people["alice"]?["presence"] == .string("home"))
        #expect(people["bob"]?["presence"] == .string("away"))
        try await bridge.stop()
        try await p.stop()
    }

    @Test("a presence message that is not JSON is unknown (logged at debug); an unknown person is told")
    func notJSON() async throws {
        let p = try await PeopleSetup.make()
        let s = p.s
        let bridge = try InProcessBridge.start(yaml: p.yaml(routes: Self.routes(s)))
        try await s.waitUntilOnline()
        try p.alice(home: false)
        try p.bob("not_home")
        try await p.waitForPresence(bridge.bridge, "alice", .away)
        try s.observer.publish(p.aliceTopic, "lwt: gone")
        try await p.waitForPresence(bridge.bridge, "alice", .unknown)
        #expect(!bridge.log.lines(containing: "presence of 'alice' unknown").isEmpty)
        try s.publish("doorbell", #"{"t":"Door"}"#)   // home audience: alice (unknown) matches
        try await p.waitFor("alice", "Door")
        try await p.settle(bridge.bridge)
        #expect(try p.titles("bob").isEmpty)
        try await bridge.stop()
        try await p.stop()
    }

    @Test("stale_after (a fake clock): an old presence becomes unknown and matches again")
    func staleAfter() async throws {
        let p = try await PeopleSetup.make()
        let s = p.s
        let clock = FakeWallClock(Date().timeIntervalSince1970)
        let bridge = try InProcessBridge.start(yaml: p.yaml(routes: Self.routes(s), aliceStale: "1h"), clock: clock.stageClock)
        try await s.waitUntilOnline()
        try await p.bothAway(bridge.bridge)
        try s.publish("alarm", #"{"t":"Away 1"}"#)   // both away: both told
        try await p.waitFor("alice", "Away 1")
        try p.alice(home: true)
        try await p.waitForPresence(bridge.bridge, "alice", .home)
        try s.publish("alarm", #"{"t":"Away 2"}"#)   // alice home: only bob
        try await p.waitFor("bob", "Away 2")
        clock.advance(3601)
        try await p.waitForPresence(bridge.bridge, "alice", .unknown)
        try s.publish("alarm", #"{"t":"Away 3"}"#)   // alice's presence is stale: unknown, told
        try await p.waitFor("alice", "Away 3")
        try await p.settle(bridge.bridge)
        #expect(try p.titles("alice").sorted() == ["Away 1", "Away 3"].sorted(), "\((try? p.titles("alice")) ?? [])")
        let people = try JSONValue.parse(Array(try await p.get("/api/people").utf8))
        #expect(people["alice"] == .object(["presence": .string("unknown"), "since": .null]))
        try await bridge.stop()
        try await p.stop()
    }

    @Test("a retained presence the broker replays at subscribe counts; a route on the presence topic still decides it")
    func retainedAtSubscribe() async throws {
        let p = try await PeopleSetup.make()
        let s = p.s
        try p.bob("home")   // retained, before the bridge subscribes
        try await s.observer.waitUntilAcknowledged("the retained state stored")
        let routes = Self.routes(s) + "\n- {name: bob-state, topic: \(p.bobTopic), retained: deliver, input: text, alert: {title: \"bob is {{ raw }}\"}}"
        let bridge = try InProcessBridge.start(yaml: p.yaml(routes: routes))
        try await s.waitUntilOnline()
        try await p.waitForPresence(bridge.bridge, "bob", .home)
        // The route that matches the presence topic decides it as a message too.
        try await p.waitFor("hall", "bob is home")
        try await bridge.stop()
        try await p.stop()
    }
}
