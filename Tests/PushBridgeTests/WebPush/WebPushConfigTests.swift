import Foundation
import Testing
@testable import PushBridge

/// `webpush:` (read by `readWebPush`, for the outputs list to call) and `monitoring.tls`.
@Suite("Web Push and monitoring.tls config")
struct WebPushConfigTests {
    /// `readWebPush` on the `webpush` mapping of `yaml` read as `dir/bridge.yml`: the config, and the printed errors.
    func read(_ yaml: String, in dir: String) throws -> (WebPushConfig?, [String]) {
        let path = dir + "/bridge.yml"
        let document = try YAMLParser.parse(yaml).get()
        let reader = ConfigReader(path: path, source: yaml, compiler: .standard)
        guard case .mapping(let pairs, _)? = document.root, let node = pairs.first?.value else {
            Issue.record("no mapping in \(yaml)")
            return (nil, [])
        }
        let config = reader.readWebPush(node)
        return (config, reader.errors.map { $0.description.replacingOccurrences(of: dir + "/", with: "") })
    }

    func directoryWithToken(_ token: String = "0123456789abcdef0123\n") throws -> String {
        let dir = NSTemporaryDirectory() + "pushbridge-wpconf-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try token.write(toFile: dir + "/token", atomically: true, encoding: .utf8)
        return dir
    }

    @Test func readsTheSection() throws {
        let dir = try directoryWithToken()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (config, errors) = try read("""
            webpush: {vapid_key_file: keys/vapid.pem, subject: "mailto:me@example.com", subscribe_token_file: token}
            """, in: dir)
        #expect(errors.isEmpty)
        let c = try #require(config)
        #expect(c.vapidKeyFile == dir + "/keys/vapid.pem", "relative to the config file")
        #expect(c.subject == "mailto:me@example.com")
        #expect(c.subscribeTokenFile == dir + "/token")
        #expect(c.subscribeToken == "0123456789abcdef0123")
        #expect(!c.summary.contains(c.subscribeToken), "the token is never printed")
        #expect(c.summary.contains("subscribe_token_file=\(dir)/token"))
        let https = try read("webpush: {vapid_key_file: /v.pem, subject: \"https://example.com/contact\", subscribe_token_file: \(dir)/token}", in: dir)
        #expect(https.1.isEmpty && https.0?.subject == "https://example.com/contact")
    }

    @Test func everyProblemAtItsPlace() throws {
        let dir = try directoryWithToken()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (config, errors) = try read("""
            webpush:
              vapid_key_fille: v.pem
              subject: "me@example.com"
              subscribe_token_file: missing
            """, in: dir)
        #expect(config == nil)
        #expect(errors == [
            "bridge.yml:2:3: error: unknown key 'vapid_key_fille' in webpush; did you mean 'vapid_key_file'?",
            "bridge.yml:2:3: error: 'webpush' needs 'vapid_key_file'",
            "bridge.yml:3:12: error: invalid 'subject' \"me@example.com\": it must be a mailto: address or an https: URL (push services contact the operator there)",
            "bridge.yml:4:25: error: cannot read 'subscribe_token_file' 'missing': No such file or directory",
        ])
    }

    @Test(arguments: [("mailto:", "a mailto: subject needs an address"), ("mailto:@x", "a mailto: subject needs an address"),
                      ("https://", "an https: subject needs a host"), ("http://example.com", "it must be a mailto: address"),
                      ("mailto:a b@c", "it must not contain spaces")])
    func subjects(subject: String, problem: String) {
        #expect(ConfigReader.subjectProblem(subject)?.hasPrefix(problem) == true)
    }

    @Test func aShortTokenIsRefused() throws {
        let dir = try directoryWithToken("short\n")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (_, errors) = try read("webpush: {vapid_key_file: v.pem, subject: \"mailto:a@b.c\", subscribe_token_file: token}", in: dir)
        #expect(errors.count == 1 && errors[0].contains("must be at least 16 characters"))
        #expect(!errors[0].contains("short"), "the token is not printed")
    }

    static func makeCertificate(in dir: String) async throws {
        let r = try await ManagedProcess.run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            "-keyout", dir + "/key.pem", "-out", dir + "/cert.pem"])
        #expect(r.status == 0, "openssl req: \(r.stderr)")
    }

    @Test func monitoringTLS() async throws {
        let dir = try directoryWithToken()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await Self.makeCertificate(in: dir)
        let path = dir + "/bridge.yml"
        let good = try loadConfig("""
            routes: [{topic: a/b}]
            monitoring: {http: "127.0.0.1:9464", tls: {cert_file: cert.pem, key_file: key.pem}}
            """, path: path)
        let tls = try #require(good.monitoring.tls)
        #expect(tls.certFile == dir + "/cert.pem" && tls.keyFile == dir + "/key.pem")
        #expect(String(decoding: tls.certPEM, as: UTF8.self).hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(String(decoding: tls.keyPEM, as: UTF8.self).contains("PRIVATE KEY-----"))
        let description = good.describe()
        #expect(description.contains("tls: cert_file=\(dir)/cert.pem key_file=\(dir)/key.pem"))
        #expect(!description.contains("BEGIN"), "no key material in check's output")

        func errors(_ yaml: String) -> [String] {
            switch ConfigLoader.load(text: "routes: [{topic: a/b}]\n" + yaml, path: path, environment: [:]) {
            case .success: return []
            case .failure(let e): return e.errors.map { $0.description.replacingOccurrences(of: dir + "/", with: "") }
            }
        }
        #expect(errors("monitoring: {http: \"127.0.0.1:9464\", tls: {cert_file: nope.pem, key_file: cert.pem}}\n") == [
            "bridge.yml:2:55: error: cannot use 'cert_file' 'nope.pem': No such file or directory",
            "bridge.yml:2:75: error: cannot use 'key_file' 'cert.pem': no PEM 'PRIVATE KEY' block in it",
        ])
        #expect(errors("monitoring:\n  tls: {cert_file: cert.pem}\n") == [
            "bridge.yml:3:3: error: 'tls' needs 'http' (the address to serve HTTPS on)",
            "bridge.yml:3:8: error: 'monitoring.tls' needs 'key_file'",
        ])
        #expect(errors("monitoring: {http: \"127.0.0.1:9464\", tls: {cert: cert.pem}}\n").contains { $0.contains("unknown key 'cert' in monitoring.tls; did you mean 'cert_file'?") })
    }
}
