import Foundation
import Testing
@testable import PushBridge

/// `monitoring.http_auth`: required off loopback, `none` warns, the token file is read when the
/// config loads (and never shown), a reload hands a new token to the running server.
@Suite struct HTTPAuthConfigTests {
    static let token = "cfg-http-token-0123456789abcdef"
    static let routes = "routes:\n  - {name: a, topic: a/#}\n"

    /// A directory with `bridge.yml` (`monitoring` as given) and `token` holding `token`; its path.
    static func directory(monitoring: String, token: String = token) throws -> String {
        let dir = try makeTempDirectory()
        try (token + "\n").write(toFile: dir + "/token", atomically: true, encoding: .utf8)
        try (routes + monitoring).write(toFile: dir + "/bridge.yml", atomically: true, encoding: .utf8)
        return dir
    }

    @Test(arguments: ["0.0.0.0:9464", "[::]:9464", "192.168.1.10:9464", "myhost:9464"])
    func offLoopbackItIsRequired(address: String) throws {
        let yaml = Self.routes + "monitoring:\n  interval: 10s\n  http: \"\(address)\"\n"
        let errors = configErrors(yaml)
        #expect(errors.count == 1)
        let e = try #require(errors.first)
        #expect(e.hasPrefix("bridge.yml:5:9: error: 'http' \"\(address)\" is not a loopback address"), "\(e)")
        #expect(e.contains("'http_auth' is required") && e.contains("http_auth: {token_file:") && e.contains("'http_auth: none'"))
        #expect(!configErrors(yaml + "  http_auth: null\n").isEmpty, "null is not none")
    }

    @Test(arguments: ["127.0.0.1:9464", "127.3.2.1:9464", "localhost:9464", "[::1]:9464"])
    func onLoopbackNothingIsNeeded(address: String) throws {
        let config = try loadConfig(Self.routes + "monitoring: {http: \"\(address)\"}\n")
        #expect(config.monitoring.httpAuth == nil && config.warnings.isEmpty)
    }

    @Test func noneLoadsWithAWarning() throws {
        let config = try loadConfig(Self.routes + "monitoring:\n  http: 0.0.0.0:9464\n  http_auth: none\n")
        #expect(config.monitoring.httpAuth == .open)
        let w = try #require(config.warnings.first)
        #expect(config.warnings.count == 1)
        #expect(w.description.hasPrefix("bridge.yml:5:14: warning: the HTTP server on 0.0.0.0:9464 is open to everyone"))
        #expect(config.describe().contains("http_auth: none"))
        // On loopback, none says what is so already: no warning.
        #expect(try loadConfig(Self.routes + "monitoring: {http: \"127.0.0.1:1\", http_auth: none}\n").warnings.isEmpty)
    }

    @Test func theTokenFileIsReadAndNeverShown() throws {
        let dir = try Self.directory(monitoring: "monitoring:\n  http: 0.0.0.0:9464\n  http_auth: {token_file: token}\n",
                                     token: "  \(Self.token) ")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        guard case .success(let config) = ConfigLoader.load(path: dir + "/bridge.yml", environment: [:]) else {
            Issue.record("did not load")
            return
        }
        #expect(config.monitoring.httpAuth == .token(file: dir + "/token", token: HTTPToken(Self.token)))
        #expect(config.warnings.isEmpty)
        let shown = [config.describe(), "\(config)", String(reflecting: config), "\(config.monitoring)", dumped(config)]
        for text in shown { #expect(!text.contains(Self.token)) }
        #expect(config.describe().contains("http_auth: token_file=\(dir)/token"))
    }

    @Test func aMissingOrEmptyTokenFileIsAnError() throws {
        let missing = configErrors(Self.routes + "monitoring:\n  http: 0.0.0.0:9464\n  http_auth:\n    token_file: /nonexistent/token\n")
        #expect(missing == ["bridge.yml:6:17: error: cannot read 'token_file' '/nonexistent/token': No such file or directory (its first line is the token the HTTP server asks for)"])
        let dir = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "\nsecond line\n".write(toFile: dir + "/empty", atomically: true, encoding: .utf8)
        let empty = configErrors(Self.routes + "monitoring: {http: \"127.0.0.1:1\", http_auth: {token_file: \(dir)/empty}}\n")
        #expect(empty.count == 1 && empty[0].contains("the first line of 'token_file' '\(dir)/empty' is empty"))
        let directory = configErrors(Self.routes + "monitoring: {http: \"127.0.0.1:1\", http_auth: {token_file: \(dir)}}\n")
        #expect(directory.count == 1 && directory[0].contains("Is a directory"))
    }

    @Test func aShortTokenWarns() throws {
        let dir = try Self.directory(monitoring: "monitoring: {http: \"127.0.0.1:1\", http_auth: {token_file: token}}\n", token: "short")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        guard case .success(let config) = ConfigLoader.load(path: dir + "/bridge.yml", environment: [:]) else {
            Issue.record("did not load")
            return
        }
        #expect(config.warnings.count == 1 && config.warnings[0].message.contains("shorter than 16 characters"))
        #expect(!config.warnings[0].description.contains("short'") && !config.warnings[0].message.contains(" short "))
    }

    @Test func mistakesInsideHTTPAuth() {
        let typo = configErrors(Self.routes + "monitoring:\n  http: \"127.0.0.1:1\"\n  http_auth: {token_fil: x}\n")
        #expect(typo.count == 2)
        #expect(typo.contains { $0.hasSuffix("error: unknown key 'token_fil' in monitoring.http_auth; did you mean 'token_file'?") })
        #expect(typo.contains { $0.contains("'monitoring.http_auth' needs 'token_file'") })
        let word = configErrors(Self.routes + "monitoring: {http: \"0.0.0.0:1\", http_auth: off}\n")
        #expect(word == [#"bridge.yml:3:44: error: 'http_auth' must be "none" or a mapping with 'token_file', got "off""#])
        let alone = configErrors(Self.routes + "monitoring: {http_auth: none}\n")
        #expect(alone.count == 1 && alone[0].contains("'http_auth' needs 'http'"))
    }

    @Test func withHTTPOffItIsNotRead() throws {
        // bridge.yml's way: both from the environment, the server off when PUSHBRIDGE_HTTP is empty.
        let yaml = Self.routes + """
            monitoring:
              http: ${PUSHBRIDGE_HTTP:-}
              http_auth:
                token_file: ${PUSHBRIDGE_HTTP_TOKEN_FILE:-/nonexistent/pushbridge_http_token}
            """
        let off = try loadConfig(yaml)
        #expect(off.monitoring.http == nil && off.monitoring.httpAuth == nil)
        #expect(configErrors(yaml, env: ["PUSHBRIDGE_HTTP": "0.0.0.0:9464"]).first?.contains("cannot read 'token_file'") == true)
        let dir = try Self.directory(monitoring: "")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let on = try loadConfig(yaml, env: ["PUSHBRIDGE_HTTP": "0.0.0.0:9464", "PUSHBRIDGE_HTTP_TOKEN_FILE": dir + "/token"])
        #expect(on.monitoring.httpAuth?.token == HTTPToken(Self.token))
    }

    @Test func checkShowsTheFileAndNeverTheToken() async throws {
        let dir = try Self.directory(monitoring: "monitoring:\n  http: 0.0.0.0:9464\n  http_auth: {token_file: token}\n")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try await ManagedProcess.run(PushbridgeBinary.path, ["check", "-c", dir + "/bridge.yml"])
        #expect(r.exitedNormally && r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("http_auth: token_file=\(dir)/token"))
        #expect(!r.stdout.contains(Self.token) && !r.stderr.contains(Self.token))
        try (Self.routes + "monitoring: {http: \"0.0.0.0:9464\", http_auth: none}\n").write(toFile: dir + "/open.yml", atomically: true, encoding: .utf8)
        let open = try await ManagedProcess.run(PushbridgeBinary.path, ["check", "-c", dir + "/open.yml"])
        #expect(open.status == 0 && open.stderr.contains("warning: the HTTP server on 0.0.0.0:9464 is open to everyone"))
    }

    // MARK: Reload

    static func bridge(_ config: BridgeConfig) throws -> Bridge {
        try InProcessBridge.make(config: config, logger: BridgeLogger(level: .error, sink: { _ in }))
    }

    static func passes(_ access: HTTPAccess?, bearer: String) -> Bool {
        access?.gate(AccessRequest(method: "GET", path: "/api/stats", client: "192.0.2.1",
                                   authorization: "Bearer \(bearer)", session: nil)) == nil
    }

    @Test func aReloadTakesTheNewTokenWithoutARestart() async throws {
        let dir = try Self.directory(monitoring: "monitoring: {stats_topic: null, http: \"0.0.0.0:9464\", http_auth: {token_file: token}}\n")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let b = try Self.bridge(try loadConfig(try String(contentsOfFile: dir + "/bridge.yml", encoding: .utf8), path: dir + "/bridge.yml"))
        defer { b.pipeline.shutdown() }
        #expect(Self.passes(b.httpAccess, bearer: Self.token))
        let next = "the-next-token-0123456789"
        try (next + "\n").write(toFile: dir + "/token", atomically: true, encoding: .utf8)
        #expect(await b.reload(path: dir + "/bridge.yml", environment: [:]) == .applied(warnings: []))
        #expect(Self.passes(b.httpAccess, bearer: next) && !Self.passes(b.httpAccess, bearer: Self.token))
        #expect(b.pipeline.config.monitoring.httpAuth?.token == HTTPToken(next))
        // `http` changed too: a restart is needed, and the running server keeps its token.
        try (Self.routes + "monitoring: {stats_topic: null, http: \"0.0.0.0:9465\", http_auth: {token_file: token}}\n")
            .write(toFile: dir + "/bridge.yml", atomically: true, encoding: .utf8)
        try (Self.token + "\n").write(toFile: dir + "/token", atomically: true, encoding: .utf8)
        #expect(await b.reload(path: dir + "/bridge.yml", environment: [:])
            == .applied(warnings: ["the monitoring section changed; restart pushbridge to use it"]))
        #expect(Self.passes(b.httpAccess, bearer: next))
    }
}

/// `dump(value)` as text.
private func dumped<T>(_ value: T) -> String {
    var out = ""
    dump(value, to: &out)
    return out
}
