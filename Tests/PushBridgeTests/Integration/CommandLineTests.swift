import Foundation
import Testing
@testable import PushBridge

/// The real `pushbridge` binary: status topic and will, signals and exit codes, `check`, `try --json`.
@Suite("Integration: command line")
struct CommandLineTests {
    static let door = """
        routes:
          - name: door
            topic: NS/in/#
            alert: {title: Door, body: "{{ payload.who }}"}
        """

    /// A fresh subscriber to the status topic: what is retained there now.
    func retainedStatus(_ s: Scenario) async throws -> InboundMessage {
        let c = try await TestClient.connected(to: s.broker, subscriptions: [MQTTSubscription(filter: s.statusTopic)])
        defer { c.stop(flushTimeout: .zero) }
        return try await c.waitForMessages(count: 1)[0]
    }

    @Test("status online (retained) while running; a signal drains, publishes offline and exits 0",
          arguments: [SIGTERM, SIGINT])
    func statusAndSignal(signal: Int32) async throws {
        let s = try await Scenario.start()
        let p = try PushbridgeBinary.run(yaml: s.yaml(Self.door.replacingOccurrences(of: "NS", with: s.ns)))
        defer { p.send(SIGKILL) }
        try await s.waitUntilOnline()
        let online = try await retainedStatus(s)
        #expect(String(decoding: online.payload, as: UTF8.self) == "online")
        #expect(online.retain)
        try s.publish("a", #"{"who":"Al"}"#)
        try await s.waitFor(s.display("a"))

        p.send(signal)
        let result = try #require(await p.waitForExit(timeout: .seconds(15)), "still running after the signal")
        #expect(result.exitedNormally && result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("draining") && result.stderr.contains("stopped"))
        try await s.waitForLastText(on: s.statusTopic, "offline")
        let offline = try await retainedStatus(s)
        #expect(String(decoding: offline.payload, as: UTF8.self) == "offline")
        #expect(offline.retain)
    }

    @Test("kill -9: the broker publishes the will (offline) as soon as the socket closes")
    func willOnKill() async throws {
        let s = try await Scenario.start()
        let p = try PushbridgeBinary.run(yaml: s.yaml(Self.door.replacingOccurrences(of: "NS", with: s.ns)))
        defer { p.send(SIGKILL) }
        try await s.waitUntilOnline()
        p.send(SIGKILL)
        // keepalive is 5 s: a will only from the keepalive timeout would take 7.5 s.
        try await s.waitForLastText(on: s.statusTopic, "offline", timeout: .seconds(4))  // the will
        let result = await p.waitForExit(timeout: .seconds(5))
        #expect(result?.exitedNormally == false)
        let retained = try await retainedStatus(s)
        #expect(String(decoding: retained.payload, as: UTF8.self) == "offline")
    }

    @Test("check: five different mistakes give five positioned errors and exit 2")
    func checkFiveMistakes() async throws {
        let file = try writeTempFile("""
            broker:
              host: localhost
              protocol: 4
              keepalive: soon
            routes:
              - name: door
                topic: home/#/door
                qos: two
                push_typ: alert
            display:
              topic: "display/{{ topic }}"
            """)
        let r = try await ManagedProcess.run(PushbridgeBinary.path, ["check", "-c", file])
        #expect(r.exitedNormally && r.status == 2)
        let errors = r.stderr.split(separator: "\n").filter { $0.contains(": error: ") }
        #expect(errors.count == 5, "\(r.stderr)")
        let positions = errors.map { line -> String in
            let afterPath = line.dropFirst(file.count + 1)
            return String(afterPath.prefix { $0 != " " })
        }
        #expect(positions == ["3:13:", "4:14:", "7:12:", "8:10:", "9:5:"], "\(r.stderr)")
        #expect(errors.allSatisfy { $0.hasPrefix(file + ":") })
        #expect(r.stderr.contains("did you mean 'push_type'?"))
        #expect(r.stderr.contains("5 errors in \(file)"))
        #expect(r.stdout.isEmpty)
    }

    @Test("check on a good file exits 0")
    func checkGood() async throws {
        let file = try writeTempFile(Self.door.replacingOccurrences(of: "NS", with: "home"))
        let r = try await ManagedProcess.run(PushbridgeBinary.path, ["check", "-c", file])
        #expect(r.exitedNormally && r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\(file): ok"))
    }

    @Test("try --json: outcome, reason, decided_by, filters, request and display")
    func tryJSON() async throws {
        let file = try writeTempFile("""
            entitlements: [com.apple.developer.usernotifications.filtering]
            routes:
              - name: door
                topic: home/+/doorbell
                alert: {title: Doorbell, body: "{{ payload.who }} is here", badge: "{{ payload.badge }}"}
            extension:
              filters:
                - name: drop-test
                  suppress: 'payload.test == true'
            display:
              topic: "display/{{ topic }}"
            dead_letter:
              topic: "dead/{{ topic }}"
            """)
        func run(_ payload: String) async throws -> JSONValue {
            let r = try await ManagedProcess.run(PushbridgeBinary.path,
                                                 ["try", "-c", file, "-t", "home/front/doorbell", "-m", payload, "--json"])
            #expect(r.exitedNormally && r.status == 0, "\(r.stderr)")
            return try JSONValue.parse(r.stdout)
        }
        let delivered = try await run(#"{"who":"Al"}"#)
        #expect(delivered["outcome"] == .string("delivered"))
        #expect(delivered["filters"] == .array([.object(["name": .string("drop-test"), "verdict": .string("passed")])]))
        #expect(delivered["request"]?["body"]?["aps"]?["alert"]?["body"] == .string("Al is here"))
        #expect(delivered["request"]?["headers"]?["apns-push-type"] == .string("alert"))
        #expect(delivered["display"]?["topic"] == .string("display/home/front/doorbell"))
        #expect(delivered["display"]?["payload"]?["title"] == .string("Doorbell"))
        #expect(delivered["reason"] == nil && delivered["decided_by"] == nil)

        let suppressed = try await run(#"{"test":true}"#)
        #expect(suppressed["outcome"] == .string("suppressed"))
        #expect(suppressed["decided_by"] == .string("drop-test"))
        #expect(suppressed["filters"] == .array([.object(["name": .string("drop-test"), "verdict": .string("suppressed")])]))
        #expect(suppressed["display"] == nil)

        let rejected = try await run(#"{"badge":"many"}"#)
        #expect(rejected["outcome"] == .string("rejected"))
        #expect(rejected["reason"] == .string("TemplateError"))
        #expect(rejected["display"] == nil)

        // An empty payload on a json route is the empty text, not PayloadEmpty.
        let empty = try await run("")
        #expect(empty["outcome"] == .string("delivered"))
        #expect(empty["display"]?["payload"]?["body"] == .string(" is here"))
    }
}
