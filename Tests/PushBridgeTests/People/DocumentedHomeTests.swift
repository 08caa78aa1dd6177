import Foundation
import Testing
@testable import PushBridge

/// docs/people.md's "A complete two-person home" run as the page has it (only the broker,
/// journal, monitoring port and the outputs' URLs changed to loopback services), each row of
/// its table "What happens" checked against real mosquitto, ntfy and webhook servers with a
/// fake wall clock; the integrations' own payloads (OwnTracks `location`, Home Assistant
/// statestream, Zigbee2MQTT `bridge/state`, `availability` and a leak sensor's report).
@Suite("Integration: the documented two-person home")
struct DocumentedHomeTests {
    /// Zigbee2MQTT's report of a water leak sensor that is wet.
    static let leak = #"{"battery":97,"battery_low":false,"linkquality":120,"tamper":false,"water_leak":true}"#

    /// The route's counter in the bridge's stats snapshot.
    static func routeCount(_ home: DocumentedHome, _ route: String, _ name: String) throws -> Int64 {
        if case .int(let n)? = try JSONValue.parse(home.bridge.bridge.snapshot().json())["routes"]?[route]?[name] { return n }
        return 0
    }

    @Test("doorbell with Alice home and Bob away; both away (held for the first one home); motion while someone is home")
    func doorbellAndMotion() async throws {
        let home = try await DocumentedHome.start()
        // Row 1: the doorbell rings, Alice home, Bob at work → Alice's phone and the hall display; not Bob.
        try await home.presence(alice: true, bob: false)
        try home.doorbell()
        try await home.waitFor("Alice's phone", count: 1) { try home.ntfy("alice") }
        try await home.waitFor("the hall display", count: 1) { try home.hall() }
        try await home.settle()
        #expect(try home.ntfy("alice") == ["Doorbell"])
        #expect(try home.hall() == ["Doorbell"])
        #expect(try home.ntfy("bob").isEmpty, "not Bob")
        #expect(try await home.aliceNtfyAll().first?["message"] == .string("Someone is at the front door"))
        #expect(try home.webhook("hall").first?["body"] == .string("Someone is at the front door"))

        // Row 2: both away → the hall display now; the phone of whoever arrives home first, then: one
        // held alert as it was; five: the 3 newest one by one and one summary of the rest.
        try await home.presence(alice: false, bob: false)
        try home.doorbell()
        try await home.waitFor("the hall display", count: 2) { try home.hall() }
        try await home.settle()
        #expect(try home.ntfy("alice") == ["Doorbell"] && home.ntfy("bob").isEmpty, "held: no phone yet")
        #expect(try Self.routeCount(home, "doorbell", "held") == 1)
        try home.bob("home")   // Bob arrives first
        try await home.waitFor("Bob's phone", count: 1) { try home.ntfy("bob") }
        try await home.settle()
        #expect(try home.ntfy("bob") == ["Doorbell"])
        #expect(try home.ntfy("alice") == ["Doorbell"], "Alice, still away, is not told the held one")
        #expect(try Self.routeCount(home, "doorbell", "held_delivered") == 1)
        try await home.presence(alice: false, bob: false)
        for _ in 0..<5 { try home.doorbell() }
        try await home.waitFor("the hall display", count: 7) { try home.hall() }
        try await eventually("5 more held", timeout: .seconds(20)) { try Self.routeCount(home, "doorbell", "held") == 6 }
        try home.alice(home: true)   // now Alice is the first one home
        try await home.waitFor("Alice's phone", count: 5) { try home.ntfy("alice") }
        try await home.settle()
        #expect(try home.ntfy("alice").sorted() == ["2 more: doorbell", "Doorbell", "Doorbell", "Doorbell", "Doorbell"])
        #expect(try home.ntfy("bob") == ["Doorbell"], "Bob, away again, is not told them")

        // Row 3: motion in the hall, someone (Alice) home → nobody, not even the display topic.
        try home.observer.publish("home/hall/motion", #"{"occupancy":true}"#)
        try await eventually("the motion decided") { try Self.routeCount(home, "motion", "suppressed") == 1 }
        try await home.settle()
        #expect(try home.hall().count == 7 && home.ntfy("alice").count == 5 && home.ntfy("bob").count == 1)
        #expect(home.observer.messages.filter { $0.topic == "display/home/hall/motion" }.isEmpty)
        // With nobody home the same motion goes to everyone.
        try await home.presence(alice: false, bob: false)
        try home.observer.publish("home/hall/motion", #"{"occupancy":true}"#)
        try await home.waitFor("the hall display", count: 8) { try home.hall() }
        try await home.waitFor("Alice's phone", count: 6) { try home.ntfy("alice") }
        try await home.waitFor("Bob's phone", count: 2) { try home.ntfy("bob") }
        #expect(try home.hall().last == "Motion: hall")
        try await home.stop()
    }

    @Test("Zigbee2MQTT offline with 40 devices: one notification, devices superseded; back with 2 still offline: one announcement; 12 devices with it online: 3 + one summary")
    func zigbee() async throws {
        let home = try await DocumentedHome.start()
        try await home.presence(alice: true, bob: true)
        // Row 4: Zigbee2MQTT goes offline, 40 devices follow → one "Zigbee2MQTT is offline"; the 40 superseded.
        try home.zigbee2mqtt("offline")
        try await home.waitFor("the hall display", count: 1) { try home.hall() }
        for n in 0..<40 { try home.availability("device\(n)", "offline") }
        try await eventually("40 superseded in /api/alerts", timeout: .seconds(20)) {
            try home.alerts().filter { jsonString($0["state"]) == "superseded" }.count == 40
        }
        try await home.settle()
        #expect(try home.hall() == ["Zigbee2MQTT is offline"])
        #expect(try home.ntfy("alice") == ["Zigbee2MQTT is offline"] && home.ntfy("bob") == ["Zigbee2MQTT is offline"])
        let superseded = try home.alerts().filter { jsonString($0["state"]) == "superseded" }
        #expect(superseded.allSatisfy { jsonString($0["route"]) == "zigbee-device-offline" }, "\(superseded.prefix(2))")
        #expect(home.observer.messages.filter { $0.topic.hasSuffix("/availability") }.isEmpty, "silent on the display topic too")

        // Row 5: Zigbee2MQTT back, 2 devices still offline → one announcement naming the 2.
        for n in 0..<38 { try home.availability("device\(n)", "online") }
        try await eventually("2 superseded left", timeout: .seconds(20)) {
            try home.alerts().filter { jsonString($0["state"]) == "superseded" }.count == 2
        }
        try home.zigbee2mqtt("online")
        // The clear withdraws the offline notification; the announcement is due at once (the condition timer).
        try await eventually("Zigbee2MQTT's condition cleared", timeout: .seconds(20)) {
            try !home.alerts().contains { jsonString($0["route"]) == "zigbee-bridge-offline" }
        }
        try await eventually("the hall display takes the offline notification down", timeout: .seconds(20)) {
            try home.webhook("hall").contains { $0["type"] == .string("withdraw") && $0["route"] == .string("zigbee-bridge-offline") }
        }
        home.bridge.fireConditions()
        let announcement = "zigbee-device-offline: 2 still active after zigbee-bridge-offline cleared"
        try await eventually("the announcement; hall: \((try? home.hall()) ?? []); log: \(home.bridge.log.lines.suffix(15))", timeout: .seconds(20)) { try home.hall().contains(announcement) }
        try await home.settle()
        let hall = try home.webhook("hall").filter { jsonString($0["title"]) == announcement }
        #expect(hall.count == 1)
        #expect(jsonString(hall.first?["body"]) == "device38 offline, device39 offline")
        #expect(try home.ntfy("alice").filter { $0 == announcement }.count == 1)
        #expect(try home.ntfy("bob").filter { $0 == announcement }.count == 1)
        let hallTitles = try home.hall()
        #expect(!hallTitles.contains { $0.hasPrefix("device") }, "no device one by one: \(hallTitles)")

        // Row 6: 12 devices drop off within two minutes, Zigbee2MQTT online → 3 one by one, then "9 more devices offline".
        home.clock.advance(600)
        home.bridge.fireDigests()
        let before = try home.hall().count
        for n in 0..<12 { try home.availability("plug\(n)", "offline") }
        try await eventually("9 held", timeout: .seconds(20)) { try Self.routeCount(home, "zigbee-device-offline", "digested") == 9 }
        try await home.waitFor("the hall display", count: before + 3) { try home.hall() }
        home.clock.advance(121)
        home.bridge.fireDigests()
        try await home.waitFor("the hall display", count: before + 4) { try home.hall() }
        try await home.settle()
        // The summary comes after the 3 (which the outputs may deliver in any order).
        let storm = try home.webhook("hall").filter { $0["type"] != .string("withdraw") }.dropFirst(before)
        let oneByOne = ["plug0 offline", "plug1 offline", "plug2 offline"]
        #expect(storm.prefix(3).map { jsonString($0["title"]) }.sorted() == oneByOne)
        #expect(jsonString(storm.last?["title"]) == "9 more devices offline")
        #expect(jsonString(storm.last?["body"]) == (3..<12).map { "plug\($0) offline" }.joined(separator: ", "))
        // ntfy lists the messages of one second in no set order.
        for who in ["alice", "bob"] {
            let phone = try home.ntfy(who)
            #expect(phone.suffix(4).sorted() == (oneByOne + ["9 more devices offline"]).sorted(), "\(who): \(phone)")
        }
        try await home.stop()
    }

    @Test("a leak nobody acknowledges: the repeats to everyone, and the 30-minute step by SMS to Alice too")
    func leak() async throws {
        let home = try await DocumentedHome.start()
        try await home.presence(alice: true, bob: false)
        let title = "Water leak: kitchen_leak"
        try home.observer.publish("zigbee2mqtt/kitchen_leak", Self.leak)
        try await home.waitFor("the hall display", count: 1) { try home.hall() }
        try await home.waitFor("Alice's phone", count: 1) { try home.ntfy("alice") }
        try await home.waitFor("Bob's phone", count: 1) { try home.ntfy("bob") }
        // The repeats every 10 minutes, to everyone; no SMS before 30 minutes.
        for (minute, told) in [(10, 2), (20, 3)] {
            home.clock.advance(600)
            home.bridge.fireConditions()
            try await home.waitFor("the hall display at \(minute) minutes", count: told) { try home.hall() }
            try await home.waitFor("Alice's phone at \(minute) minutes", count: told) { try home.ntfy("alice") }
            try await home.waitFor("Bob's phone at \(minute) minutes", count: told) { try home.ntfy("bob") }
        }
        home.clock.advance(599)
        home.bridge.fireConditions()
        try await home.settle()
        #expect(try home.webhook("sms").isEmpty, "no SMS before 30 minutes")
        home.clock.advance(1)
        home.bridge.fireConditions()
        try await home.waitFor("the SMS", count: 1) { try home.webhook("sms") }
        try await home.waitFor("the hall display at 30 minutes", count: 4) { try home.hall() }
        try await home.settle()
        #expect(try home.webhook("sms") == [.object(["to": .string("alice"), "text": .string(title)])])
        #expect(try home.webhook("hall").map { jsonString($0["condition"]?["state"]) } == ["raised", "repeated", "repeated", "escalated"],
                "the step at 30 minutes; the next repeat counts from it")
        #expect(try home.hall().allSatisfy { $0 == title })
        #expect(try home.ntfy("alice").count == home.hall().count && home.ntfy("bob").count == home.hall().count, "the step to everyone too")
        // Later repeats do not go by SMS.
        home.clock.advance(600)
        home.bridge.fireConditions()
        try await home.waitFor("the hall display at 40 minutes", count: 5) { try home.hall() }
        try await home.settle()
        #expect(try home.webhook("sms").count == 1)
        #expect(try home.webhook("hall").last?["condition"]?["state"] == .string("repeated"))
        try await home.stop()
    }

    @Test("ntfy.sh down for 5 minutes: Alice's alert also goes by SMS, once")
    func ntfyDown() async throws {
        let home = try await DocumentedHome.start()
        try await home.presence(alice: true, bob: false)
        await home.aliceNtfy.stop()   // "ntfy.sh" refuses connections from now on
        try home.doorbell()
        try await home.waitFor("the hall display", count: 1) { try home.hall() }
        _ = try await home.bridge.log.waitFor("alice-phone retrying", timeout: .seconds(20)) {
            $0.contains("output 'alice-phone'") && $0.contains("retrying")
        }
        home.clock.advance(299)
        home.bridge.fireConditions()
        #expect(try home.output("alice-phone").fellBack == 0, "not before 5 minutes")
        home.clock.advance(2)
        home.bridge.fireConditions()
        try await home.waitFor("the SMS", count: 1) { try home.webhook("sms") }
        #expect(try home.webhook("sms") == [.object(["to": .string("alice"), "text": .string("Doorbell")])])
        #expect(try home.output("alice-phone").fellBack == 1)
        home.clock.advance(3600)
        home.bridge.fireConditions()
        #expect(try home.output("alice-phone").fellBack == 1)
        #expect(try home.webhook("sms").count == 1, "once")
        #expect(try home.ntfy("bob").isEmpty, "Bob is away: the fallback is Alice's alone")
        #expect(try home.output("alice-phone").pending == 1, "her ntfy output keeps retrying it")
        try await home.stop()
    }

    @Test("Alice's ntfy.sh output at 200 deliveries today: one summary per route every 15 minutes; from 250 only critical alerts")
    func budget() async throws {
        let home = try await DocumentedHome.start()
        try await home.presence(alice: true, bob: false)
        // 200 doorbells with Alice home: each one delivery of her phone's output (ntfy on loopback).
        for _ in 0..<200 { try home.doorbell() }
        try await home.waitForDelivered("alice-phone", 200)
        try await home.settle()
        #expect(try home.output("alice-phone").budgetUsed == 200)
        #expect(try home.output("alice-phone").budgetDigested == 0)
        // From the alert that finds 80 % used: held for the route's summary (the hall has no budget).
        for _ in 0..<2 { try home.doorbell() }
        try await eventually("2 held by the budget", timeout: .seconds(20)) { try home.output("alice-phone").budgetDigested == 2 }
        try await home.waitForDelivered("hall-display", 202)
        #expect(home.bridge.log.lines.contains { $0.contains("200 of its 250 deliveries a day used") }, "the 80 % warning")
        home.clock.advance(14 * 60)
        home.bridge.fireConditions()
        try await home.settle()
        #expect(try home.output("alice-phone").delivered == 200, "no summary before 15 minutes")
        home.clock.advance(61)
        home.bridge.fireConditions()
        try await home.waitForDelivered("alice-phone", 201)
        let summaries = try await home.aliceNtfyAll().filter { $0["title"] == .string("2 more: doorbell") }
        #expect(summaries.count == 1 && summaries.first?["message"] == .string("Doorbell, Doorbell"), "\(summaries)")
        #expect(try home.output("alice-phone").budgetUsed == 201, "the summary counts")
        // Critical alerts (leaks) still go and count, up to 250 and past it.
        for n in 0..<49 { try home.observer.publish("zigbee2mqtt/leak\(n)", Self.leak) }
        try await home.waitForDelivered("alice-phone", 250)
        try await home.settle()
        #expect(try home.output("alice-phone").budgetUsed == 250)
        // Used up: a doorbell is dropped for her phone (the hall still gets it), a leak still goes.
        try home.doorbell()
        try await eventually("the doorbell dropped", timeout: .seconds(20)) { try home.output("alice-phone").budgetDropped == 1 }
        try home.observer.publish("zigbee2mqtt/leak-last", Self.leak)
        try await home.waitForDelivered("alice-phone", 251)
        try await home.waitForDelivered("hall-display", 203 + 50)
        try await home.settle()
        let phone = try await home.aliceNtfyAll()
        #expect(phone.count == 251)
        #expect(phone.filter { $0["title"] == .string("Water leak: leak-last") }.count == 1)
        #expect(phone.filter { ($0["title"]?.stringValue ?? "").hasPrefix("Water leak: ") }.count == 50)
        #expect(phone.filter { $0["title"] == .string("Doorbell") }.count == 200)
        #expect(try home.output("alice-phone").budgetUsed == 251)
        #expect(home.bridge.log.lines.contains { $0.contains("its 250 deliveries a day are used") }, "the 100 % warning")
        try await home.stop()
    }
}
