import Foundation
import Testing
@testable import PushBridge

/// `monitoring.tls` on a running `pushbridge run` (a real broker, a self-signed certificate made
/// by `openssl req`): /healthz and /api/stats over https with curl --cacert, plain http refused,
/// and `pushbridge health` probing the https endpoint.
@Suite("Monitoring over TLS")
struct MonitoringTLSBridgeTests {
    @Test func theBridgeServesHTTPSAndHealthProbesIt() async throws {
        let broker = try TestBroker()
        let dir = NSTemporaryDirectory() + "pb-tls-run-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await WebPushConfigTests.makeCertificate(in: dir)
        let http = try LoopbackPorts.free()
        let yaml = brokerSection(broker, clientID: uniqueName("tls")) + """
            routes: [{name: a, topic: "\(uniqueName("tls"))/#"}]
            monitoring:
              http: "127.0.0.1:\(http)"
              tls: {cert_file: cert.pem, key_file: key.pem}
            """
        let file = dir + "/bridge.yml"
        try yaml.write(toFile: file, atomically: true, encoding: .utf8)
        let bridge = try await PushbridgeBinary.start(configFile: file, broker: broker)
        do {
            try await bridge.errorLines.waitFor(line: "monitoring on https://127.0.0.1:\(http)", timeout: .seconds(10))
            let curl = { (args: [String]) in try await ManagedProcess.run("/usr/bin/curl", ["-sS", "--max-time", "5"] + args) }
            let health = try await curl(["--cacert", dir + "/cert.pem", "https://127.0.0.1:\(http)/healthz"])
            #expect(health.stdout == "ok", "\(health.stderr)")
            let stats = try await curl(["--cacert", dir + "/cert.pem", "https://127.0.0.1:\(http)/api/stats"])
            #expect((try? JSONValue.parse(stats.stdout))?["version"] != nil, "\(stats.stdout) \(stats.stderr)")
            let plain = try await curl(["http://127.0.0.1:\(http)/healthz"])
            #expect(plain.status != 0 && plain.stdout.isEmpty, "plain HTTP gets no answer from the TLS port")

            let probe = try await ManagedProcess.run(PushbridgeBinary.path, ["health", "-c", file],
                                                     environment: PushbridgeBinary.environment)
            #expect(probe.status == 0, "health over https: \(probe.stderr)")
            let url = try await ManagedProcess.run(PushbridgeBinary.path, ["health", "--url", "https://127.0.0.1:\(http)/readyz"],
                                                   environment: PushbridgeBinary.environment)
            #expect(url.status == 0, "\(url.stderr)")
            let wrong = try await ManagedProcess.run(PushbridgeBinary.path, ["health", "--url", "http://127.0.0.1:\(http)/healthz"],
                                                     environment: PushbridgeBinary.environment)
            #expect(wrong.status == 1, "plain http against the TLS port is unhealthy: \(wrong.stderr)")
            let missing = try await ManagedProcess.run(PushbridgeBinary.path, ["health", "--url", "https://127.0.0.1:\(http)/nope"],
                                                       environment: PushbridgeBinary.environment)
            #expect(missing.status == 1 && missing.stderr.contains("HTTP 404"), "\(missing.stderr)")
        } catch {
            await bridge.terminate()
            throw error
        }
        let end = await bridge.terminate()
        #expect(end.status == 0, "\(end.stderr.suffix(500))")
    }
}
