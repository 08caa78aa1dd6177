import Foundation
import Testing
@testable import PushBridge

/// The broker misbehaves: it restarts mid-stream, is down at start, refuses a topic.
@Suite("BrokerFaults")
struct BrokerFaultTests {
    @Test("broker restart (persistence on) mid-stream: every QoS 1 message is displayed", .timeLimit(.minutes(2)))
    func brokerRestart() async throws {
        let broker = try TestBroker()
        let prefix = uniqueName("restart")
        let journal = FileManager.default.temporaryDirectory.appendingPathComponent(uniqueName("journal")).path
        defer { try? FileManager.default.removeItem(atPath: journal) }
        let config = try writeTempFile(FaultSupport.config(
            broker: broker, clientID: uniqueName("bridge"), prefix: prefix, journalPath: journal))
        // The display subscriber keeps a session too, so the broker queues for it across the restart.
        let display = try TestClient(options: TestClient.options(
            broker, subscriptions: [MQTTSubscription(filter: "display/\(prefix)/#", qos: 1)], cleanStart: false))
        display.start()
        try await display.waitUntilSubscribed()
        let bridge = try await PushbridgeBinary.start(configFile: config, broker: broker)
        let publisher = try TestClient(options: TestClient.options(broker, cleanStart: false))
        publisher.start()
        try await publisher.waitUntilConnected()
        let total = 3000
        for n in 0..<total {
            try publisher.publish("\(prefix)/t\(n % 4)", "\(n)", qos: 1)
            if n == total / 2 {
                try await publisher.waitUntilAcknowledged("half acknowledged") { $0 < 200 }
                try broker.restart()
            }
        }
        let bodies = try await display.waitForDistinct("bodies displayed", count: total, timeout: .seconds(60)) {
            FaultSupport.bodyAndID($0).flatMap { Int($0.body) }
        }
        #expect(bodies == Set(0..<total))
        let result = await bridge.terminate()
        #expect(result.status == 0 && result.exitedNormally, "\(result.stderr.suffix(600))")
        #expect(result.stderr.contains("connection to 127.0.0.1:\(broker.port) lost"))
    }

    @Test("broker down at start: the bridge keeps retrying and works once it is up", .timeLimit(.minutes(1)))
    func brokerUnreachableAtStart() async throws {
        let broker = try TestBroker(start: false)
        let prefix = uniqueName("late")
        let config = try writeTempFile(FaultSupport.config(
            broker: broker, clientID: uniqueName("bridge"), prefix: prefix, journalPath: nil))
        let bridge = try PushbridgeBinary.run(configFile: config)
        try await bridge.errorLines.waitFor(line: "cannot connect to 127.0.0.1:\(broker.port)")
        // Retries go on while the broker stays down: two more failed attempts (backoff 100-500 ms).
        try await bridge.errorLines.waitFor("more failed attempts", count: 3) {
            $0.contains("cannot connect to 127.0.0.1:\(broker.port)")
        }
        #expect(bridge.isRunning)
        let before = broker.subscriptions().count
        try broker.start()
        try await bridge.waitUntilSubscribed(on: broker, after: before, timeout: .seconds(10))
        let display = try await TestClient.connected(to: broker, subscriptions: [MQTTSubscription(filter: "display/\(prefix)/#")])
        let publisher = try await TestClient.connected(to: broker)
        try publisher.publish("\(prefix)/x", "hello", qos: 1)
        let got = try await display.waitForMessages(count: 1)
        #expect(FaultSupport.bodyAndID(got[0])?.body == "hello")
        let result = await bridge.terminate()
        #expect(result.status == 0)
    }

    @Test("a display topic the ACL refuses and a dead letter that cannot be published: counted, logged, the bridge goes on",
          .timeLimit(.minutes(1)))
    func refusedTopics() async throws {
        let prefix = uniqueName("acl")
        let broker = try TestBroker(TestBroker.Options(acl: """
            topic readwrite \(prefix)/#
            topic readwrite display/\(prefix)/ok
            topic read display/\(prefix)/#
            topic readwrite pushbridge/#
            """))
        let journal = FileManager.default.temporaryDirectory.appendingPathComponent(uniqueName("journal")).path
        defer { try? FileManager.default.removeItem(atPath: journal) }
        var text = FaultSupport.config(broker: broker, clientID: uniqueName("bridge"), prefix: prefix, journalPath: journal,
                                       extra: "dead_letter: {topic: \"dead/{{ raw }}\"}\n")
        text = text.replacingOccurrences(of: "input: text", with: "input: apns")
        let running = try InProcessBridge.start(yaml: text, level: .info)
        let bridge = running.bridge
        try await running.waitUntilSubscribed(on: broker)
        let display = try await TestClient.connected(to: broker, subscriptions: [MQTTSubscription(filter: "display/\(prefix)/#")])
        let publisher = try await TestClient.connected(to: broker)
        let alert = #"{"aps":{"alert":"hi"}}"#
        try publisher.publish("\(prefix)/denied", alert, qos: 1)  // display/<prefix>/denied: refused by the ACL
        try publisher.publish("\(prefix)/bad", "not json #", qos: 1)  // rejected; dead/not json # is no topic
        try publisher.publish("\(prefix)/ok", alert, qos: 1)
        let got = try await display.waitForMessages(count: 1)
        #expect(got.map(\.topic) == ["display/\(prefix)/ok"])
        try await running.log.waitFor(line: "broker rejected publish")
        try await eventually("nothing left open in the journal") { bridge.intake.journal?.openCount == 0 }
        #expect(bridge.intake.counters.counts(publishRefused: 0)[.publishFailed] == 1)
        #expect(running.log.contains("publish to 'dead/"))
        try await running.stop()
        #expect(display.messages.count == 1)
    }

    @Test("SIGTERM drains what is in flight and exits 0; the journal is left empty", .timeLimit(.minutes(1)))
    func gracefulDrain() async throws {
        let broker = try TestBroker()
        let prefix = uniqueName("drain")
        let journal = FileManager.default.temporaryDirectory.appendingPathComponent(uniqueName("journal")).path
        defer { try? FileManager.default.removeItem(atPath: journal) }
        let config = try writeTempFile(FaultSupport.config(
            broker: broker, clientID: uniqueName("bridge"), prefix: prefix, journalPath: journal))
        let display = try await TestClient.connected(to: broker, subscriptions: [MQTTSubscription(filter: "display/\(prefix)/#")])
        let bridge = try await PushbridgeBinary.start(configFile: config, broker: broker)
        let publisher = try await TestClient.connected(to: broker)
        for n in 0..<500 { try publisher.publish("\(prefix)/t", "\(n)", qos: 1) }
        try await display.waitForMessages(count: 1)
        try await publisher.waitUntilAcknowledged("publisher flushed")
        let result = await bridge.terminate(grace: .seconds(30))
        #expect(result.exitedNormally && result.status == 0, "\(result.stderr.suffix(600))")
        var c = JournalConfig()
        c.path = journal
        #expect(try Journal(config: c).openCount == 0)  // everything it had received was finished
        // What the broker had not delivered yet waits in the bridge's persistent session (it is
        // not in flight): a second run gets it. Seen alone and under sanitizers: 64-468 of 500
        // had reached the bridge at the SIGTERM.
        let again = try await PushbridgeBinary.start(configFile: config, broker: broker)
        _ = try await display.waitForMessages(count: 500, timeout: .seconds(30))
        _ = await again.terminate(grace: .seconds(30))
    }

    @Test("SIGTERM during a QoS 1 stream without a journal: what was read is shown, the rest waits in the session",
          .timeLimit(.minutes(2)))
    func drainWithoutJournalLosesNothing() async throws {
        let broker = try TestBroker()
        let prefix = uniqueName("drain0")
        let config = try writeTempFile(FaultSupport.config(
            broker: broker, clientID: uniqueName("bridge"), prefix: prefix, journalPath: nil))
        let display = try await TestClient.connected(to: broker, subscriptions: [MQTTSubscription(filter: "display/\(prefix)/#", qos: 1)])
        let bridge = try await PushbridgeBinary.start(configFile: config, broker: broker)
        let publisher = try await TestClient.connected(to: broker)
        let stream = Task.detached {
            for n in 0..<3000 {
                try publisher.publish("\(prefix)/t", "\(n)", qos: 1)
                while publisher.client.unacknowledgedCount > 200 { try await Task.sleep(for: .milliseconds(1)) }
            }
        }
        try await display.waitForMessages(count: 1)
        // Stop it while messages keep arriving: those read before the stop must be shown,
        // those not read stay the broker's.
        let result = await bridge.terminate(grace: .seconds(30))
        #expect(result.exitedNormally && result.status == 0, "\(result.stderr.suffix(600))")
        try await stream.value
        try await publisher.waitUntilAcknowledged("publisher flushed", timeout: .seconds(30))
        let again = try await PushbridgeBinary.start(configFile: config, broker: broker)
        try await display.waitForDistinct("bodies displayed at least once", count: 3000, timeout: .seconds(60)) {
            FaultSupport.bodyAndID($0)?.body
        }
        _ = await again.terminate(grace: .seconds(30))
        publisher.stop()
        display.stop()
    }
}
