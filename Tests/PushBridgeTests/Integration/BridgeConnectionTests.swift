import Foundation
import Testing
@testable import PushBridge

/// Authentication, TLS, broker restarts and persistent sessions.
@Suite("Integration: connection")
struct BridgeConnectionTests {
    static func routes(_ s: Scenario, qos: Int = 1) -> String {
        """
        routes:
          - name: door
            topic: \(s.ns)/in/#
            qos: \(qos)
            alert: {title: Door, body: "{{ payload.who }}"}
        """
    }

    /// Publishes `who: probe-N` every 300 ms until one is displayed: the bridge is (re)connected and subscribed.
    /// (A reconnection with the session present sends no SUBSCRIBE, and the status topic's
    /// retained `online` survives the restart: a displayed probe is the one sure sign.)
    func publishUntilDisplayed(_ s: Scenario, topic: String, timeout: Duration = .seconds(15)) async throws {
        var n = 0
        let deadline = ContinuousClock.now + timeout
        while s.messages(on: s.display(topic)).isEmpty {
            if ContinuousClock.now > deadline { throw ProcessError(description: "no probe displayed on \(topic)") }
            if s.observer.client.isConnected {
                n += 1
                try? s.publish(topic, #"{"who":"probe-\#(n)"}"#)
            }
            try await Task.sleep(for: .milliseconds(300))
        }
    }

    @Test("username and password_file: the bridge connects and messages flow")
    func passwordFile() async throws {
        let s = try await Scenario.start(.init(users: ["bridge": "s3cret pass"]))
        let file = try writeTempFile("s3cret pass\n", name: "password")
        let bridge = try InProcessBridge.start(yaml: s.yaml(Self.routes(s), brokerExtra: "username: bridge\npassword_file: \(file)"))
        try await s.waitUntilOnline()
        try s.publish("a", #"{"who":"Al"}"#)
        #expect(try await s.waitFor(s.display("a")).count == 1)
        try await bridge.stop()
    }

    @Test("a wrong password is retried with backoff and logged; the bridge never exits for it")
    func wrongPassword() async throws {
        let s = try await Scenario.start(.init(users: ["bridge": "right"]))
        let file = try writeTempFile("wrong\n", name: "password")
        let p = try PushbridgeBinary.run(yaml: s.yaml(Self.routes(s), brokerExtra: "username: bridge\npassword_file: \(file)"))
        defer { p.send(SIGKILL) }
        try await p.errorLines.waitFor("refused attempts logged", count: 3, timeout: .seconds(15)) { $0.contains("failed") }
        #expect(p.isRunning)
        #expect(!p.stderr.contains("wrong"), "the password is never logged")
        #expect(s.broker.log.contains("not authorised") || s.broker.log.contains("not authorized"), "\(s.broker.log.suffix(500))")
        let result = await p.terminate(grace: .seconds(15))
        #expect(result.exitedNormally && result.status == 0, "\(result.stderr)")
    }

    @Test("TLS with the generated CA (tls: {ca_file})")
    func tls() async throws {
        let s = try await Scenario.start(.init(tls: true))
        let bridge = try InProcessBridge.start(yaml: s.yaml(Self.routes(s), brokerExtra: "tls: {ca_file: \(s.broker.caFile)}",
                                           port: s.broker.tlsPort))
        try await s.waitUntilOnline()
        try s.publish("a", #"{"who":"Al"}"#)
        #expect(try await s.waitFor(s.display("a")).count == 1)
        #expect(bridge.log.contains("connected to 127.0.0.1:\(s.broker.tlsPort ?? 0)"))
        try await bridge.stop()
    }

    @Test("TLS with a CA that did not sign the server: refused, retried, logged")
    func tlsWrongCA() async throws {
        let s = try await Scenario.start(.init(tls: true))
        let other = try TestBroker(.init(tls: true), start: false)
        let bridge = try InProcessBridge.start(yaml: s.yaml(Self.routes(s), brokerExtra: "tls: {ca_file: \(other.caFile)}",
                                           port: s.broker.tlsPort))
        try await bridge.log.waitFor("failed TLS attempts", count: 2) { $0.contains("failed") }
        #expect(s.texts(on: s.statusTopic).isEmpty)
        try await bridge.stop()
    }

    @Test("broker restart: the bridge reconnects and messages flow again")
    func brokerRestart() async throws {
        let s = try await Scenario.start()
        let bridge = try InProcessBridge.start(yaml: s.yaml(Self.routes(s)))
        try await s.waitUntilOnline()
        try s.publish("a", #"{"who":"before"}"#)
        try await s.waitFor(s.display("a"))
        try s.restartBroker()
        try await s.observer.waitUntilSubscribed()
        try await publishUntilDisplayed(s, topic: "b")
        #expect(bridge.log.contains("disconnected"))
        try await bridge.stop()
    }

    @Test("persistent session: QoS 1 messages published while the bridge is down are processed when it returns")
    func persistentSession() async throws {
        let s = try await Scenario.start()
        let yaml = s.yaml(Self.routes(s), clientID: uniqueName("persistent"),
                          brokerExtra: "clean_start: false\nsession_expiry: 1h")
        let first = try PushbridgeBinary.run(yaml: yaml)
        defer { first.send(SIGKILL) }
        try await s.waitUntilOnline()
        let stopped = await first.terminate(grace: .seconds(15))
        #expect(stopped.exitedNormally && stopped.status == 0, "\(stopped.stderr)")

        for i in 1...5 { try s.publish("a", #"{"who":"away-\#(i)"}"#) }
        try await s.observer.waitUntilAcknowledged("the observer's publishes acknowledged")

        let second = try PushbridgeBinary.run(yaml: yaml)
        defer { second.send(SIGKILL) }
        let shown = try await s.waitFor(s.display("a"), count: 5).map { try JSONValue.parse($0.payload)["body"] }
        #expect(shown == (1...5).map { .string("away-\($0)") })
        #expect(second.stderr.contains("(session present)"), "\(second.stderr)")
        let r = await second.terminate(grace: .seconds(15))
        #expect(r.exitedNormally && r.status == 0)
    }
}
