import Foundation
import Synchronization
@testable import PushBridge

/// A real ntfy server on a free loopback port with a private config (cache file, and with
/// `protected` an auth file with `auth-default-access: deny-all`, one user and its token; with
/// `uploads` an attachment cache folder, so it takes attachment uploads).
///
/// The binary is Debian's `ntfy` package (trixie and later), fetched and unpacked by
/// `integration/ntfy/install.sh` into /var/cache/pushbridge-test/ntfy (never the machine's apt
/// sources).
final class NtfyServer: Sendable {
    let port: Int
    let directory: String
    let binary: String
    /// The user's access token when the server is `protected`.
    let token: String?
    /// The server process while it runs.
    private let process = Mutex<ManagedProcess?>(nil)

    /// `ntfy` from the cache, installing it first when missing.
    static func binaryPath() async throws -> String {
        let r = try await ManagedProcess.run(repositoryRoot + "/integration/ntfy/install.sh", [], timeout: .seconds(300))
        guard r.status == 0, let path = r.stdout.split(separator: "\n").last.map(String.init) else {
            throw ProcessError(description: "integration/ntfy/install.sh failed: \(r.stderr)")
        }
        return path
    }

    /// Prepares the config (and the user and token when `protected`); `start` says whether it runs now.
    static func make(protected: Bool = false, uploads: Bool = false, start: Bool = true) async throws -> NtfyServer {
        let binary = try await binaryPath()
        let port = try LoopbackPorts.free()
        let dir = NSTemporaryDirectory() + "pushbridge-ntfy-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var config = """
            listen-http: "127.0.0.1:\(port)"
            base-url: "http://127.0.0.1:\(port)"
            cache-file: "\(dir)/cache.db"
            # The tests poll the server while they wait: on a loaded machine that passed ntfy's
            # per-visitor burst of 60 requests once (429 to the test's own poll).
            visitor-request-limit-exempt-hosts: "127.0.0.1"

            """
        if uploads {
            config += "attachment-cache-dir: \"\(dir)/attachments\"\n"
        }
        if protected {
            config += "auth-file: \"\(dir)/auth.db\"\nauth-default-access: \"deny-all\"\n"
        }
        try config.write(toFile: dir + "/server.yml", atomically: true, encoding: .utf8)
        var token: String?
        let server0 = NtfyServer(port: port, directory: dir, binary: binary, token: nil)
        if protected {
            // The server makes its auth file when it starts; the users go in after.
            try await server0.start()
            var env = ProcessInfo.processInfo.environment
            env["NTFY_PASSWORD"] = "pw-\(UUID().uuidString)"
            let c = ["--config", dir + "/server.yml"]
            try await Self.run(binary, ["user"] + c + ["add", "bridge"], env: env)
            try await Self.run(binary, ["access"] + c + ["bridge", "*", "rw"], env: env)
            let out = try await Self.run(binary, ["token"] + c + ["add", "bridge"], env: env)
            token = out.split(whereSeparator: { $0 == " " || $0 == "\n" }).first { $0.hasPrefix("tk_") }.map(String.init)
            guard token != nil else { throw ProcessError(description: "no token in: \(out)") }
        }
        await server0.stop()
        let server = NtfyServer(port: port, directory: dir, binary: binary, token: token)
        if start { try await server.start() }
        return server
    }

    private init(port: Int, directory: String, binary: String, token: String?) {
        self.port = port
        self.directory = directory
        self.binary = binary
        self.token = token
    }

    @discardableResult
    private static func run(_ binary: String, _ args: [String], env: [String: String]) async throws -> String {
        let r = try await ManagedProcess.run(binary, args, environment: env, timeout: .seconds(30))
        guard r.status == 0 else { throw ProcessError(description: "ntfy \(args.joined(separator: " ")): \(r.stderr)") }
        return r.stdout + r.stderr
    }

    func start() async throws {
        let p = try ManagedProcess(binary, ["serve", "--config", directory + "/server.yml"])
        process.withLock { $0 = p }
        try await eventually("ntfy on \(port)", timeout: .seconds(20)) { LoopbackPorts.isAccepting(port) }
    }

    func stop() async {
        if let p = process.withLock({ p in defer { p = nil }; return p }) { _ = await p.terminate(grace: .seconds(5)) }
    }

    /// The version line ntfy logs at start (`ntfy 2.11.0-2+b4`).
    var versionLine: String? {
        process.withLock { $0 }?.errorLines.lines.first { $0.contains("Listening on") }
    }

    func url(_ topic: String) -> String { "http://127.0.0.1:\(port)/\(topic)" }

    /// What `topic` holds, through ntfy's own JSON API (`GET /<topic>/json?poll=1`, one JSON object per line).
    func messages(_ topic: String, token: String? = nil) throws -> [JSONValue] {
        let headers = token.map { [("Authorization", "Bearer \($0)")] } ?? []
        let r = try loopbackHTTP(ServiceRequest(method: "GET", url: url(topic) + "/json?poll=1", headers: headers))
        guard r.status == 200 else {
            throw NtfyStatus(status: r.status, body: String(decoding: r.body, as: UTF8.self))
        }
        return try String(decoding: r.body, as: UTF8.self).split(separator: "\n").map { try JSONValue.parse(String($0)) }
            .filter { $0["event"] == .string("message") }
    }
}

/// ntfy answered a read with something other than 200.
struct NtfyStatus: Error {
    var status: Int
    var body: String
}
