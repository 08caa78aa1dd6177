import Foundation
import Testing
@testable import PushBridge

@Suite("Deployment", .serialized) struct DeployTests {
    /// hadolint on the Dockerfile, `docker-compose config` for both profiles, the image's build
    /// context (SwiftPM loads the manifest from exactly what the build stage copies), `pushbridge check`
    /// on the shipped configs, the health command, the compose services run natively (one
    /// message through), and three `partition:` replicas handling 3 000 QoS 1 messages exactly once, in order per room.
    @Test func deploymentChecksPass() async throws {
        let p = try ManagedProcess("/bin/bash", [repositoryRoot + "/integration/deploy/run.sh", PushbridgeBinary.path])
        let result = await p.waitForExit(timeout: .seconds(300))
        let r = try #require(result, "integration/deploy/run.sh did not finish in 300 s")
        #expect(r.status == 0, "integration/deploy/run.sh failed:\n\(r.stdout.suffix(4000))\n\(r.stderr.suffix(4000))")
        #expect(r.stdout.contains("deploy: 7 passed, 0 failed"), "\(r.stdout.suffix(2000))")
    }
}

@Suite("Hot reload") struct ReloadTests {
    func config(_ routes: String, broker: TestBroker, clientID: String) -> String {
        brokerSection(broker, clientID: clientID) + """
        routes:
        \(routes)
        display: {topic: "shown/{{ topic }}"}
        monitoring: {status_topic: null, stats_topic: null}
        """
    }

    @Test func sighupMovesTrafficToTheNewRouteAndABrokenFileKeepsTheOld() async throws {
        let broker = try TestBroker()
        let id = uniqueName("reload")
        let path = try writeTempFile(config("  - {name: old, topic: \(id)/a/#, alert: {title: \"old {{ raw }}\"}}",
                                            broker: broker, clientID: id))
        let sink = try await TestClient.connected(to: broker, subscriptions: [MQTTSubscription(filter: "shown/\(id)/#", qos: 1)])
        defer { sink.stop() }
        let publisher = try await TestClient.connected(to: broker)
        defer { publisher.stop() }
        let bridgeProcess = try await PushbridgeBinary.start(configFile: path, broker: broker)
        defer { bridgeProcess.send(SIGKILL) }

        // A steady QoS 1 stream on the old route while the file changes: nothing lost, nothing twice.
        for i in 0..<100 { _ = try publisher.publish("\(id)/a/x", "m\(i)") }
        try config("""
          - {name: old, topic: \(id)/a/#, alert: {title: "old {{ raw }}"}}
          - {name: new, topic: \(id)/b/#, alert: {title: "new {{ raw }}"}}
        """, broker: broker, clientID: id).write(toFile: path, atomically: true, encoding: .utf8)
        bridgeProcess.send(SIGHUP)
        for i in 100..<200 { _ = try publisher.publish("\(id)/a/x", "m\(i)") }
        try await bridgeProcess.errorLines.waitFor(line: "reloaded: 2 route(s)")
        _ = try publisher.publish("\(id)/b/y", "first")
        let got = try await sink.waitForMessages(count: 201, timeout: .seconds(20))
        let bodies = got.compactMap { try? JSONValue.parse($0.payload)["title"]?.stringValue }
        #expect(Set(bodies.filter { $0.hasPrefix("old ") }).count == 200)
        #expect(bodies.filter { $0.hasPrefix("old ") }.count == 200, "a message was duplicated")
        #expect(bodies.contains("new first"))

        // A broken file is refused with its errors logged; the bridge keeps the routes it had.
        try "routes: [\n  - {topic: \"a/#\", qos: two}\n".write(toFile: path, atomically: true, encoding: .utf8)
        bridgeProcess.send(SIGHUP)
        try await bridgeProcess.errorLines.waitFor(line: "reload refused")
        #expect(bridgeProcess.isRunning)
        _ = try publisher.publish("\(id)/b/y", "second")
        let more = try await sink.waitForMessages(count: 202, timeout: .seconds(10))
        #expect(more.contains { (try? JSONValue.parse($0.payload)["title"]?.stringValue) == "new second" })

        bridgeProcess.send(SIGTERM)
        let exit = await bridgeProcess.waitForExit(timeout: .seconds(10))
        #expect(exit?.status == 0 && exit?.exitedNormally == true)
    }
}
