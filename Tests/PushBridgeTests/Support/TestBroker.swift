import Foundation
import Synchronization

/// A private mosquitto broker for one test: its own loopback port, temp directory,
/// persistence file, and optionally users, TLS and an ACL.
///
/// `let broker = try TestBroker()`; connect to `127.0.0.1:broker.port`. `stop()`,
/// `start()` and `restart()` keep the port and the data (sessions survive a restart).
/// `deinit` kills the broker and removes the directory.
final class TestBroker: Sendable {
    /// How the broker is set up.
    struct Options: Sendable {
        /// user → password; when non-empty, anonymous clients are refused.
        var users: [String: String] = [:]
        /// Adds a TLS listener (`tlsPort`) with a CA and server certificate made here.
        var tls = false
        /// Names in the server certificate (IP addresses become IP SANs; the first is the CN).
        var tlsNames = ["127.0.0.1", "localhost"]
        /// ACL file text (`user x` / `topic readwrite a/#` …).
        var acl: String? = nil
        /// More `mosquitto.conf` lines.
        var extraConfig: [String] = []
    }

    let options: Options
    /// The private directory (config, data, log, certificates).
    let directory: String
    let port: Int
    /// The TLS listener's port when `options.tls`.
    let tlsPort: Int?
    private let process = Mutex<ChildProcess?>(nil)

    /// The CA certificate that signed the server certificate (with `tls`).
    var caFile: String { directory + "/ca.crt" }
    var configFile: String { directory + "/mosquitto.conf" }
    var passwordFile: String { directory + "/passwd" }
    var logFile: String { directory + "/mosquitto.log" }

    /// Sets up the directory and, when `start`, starts the broker and waits until it accepts
    /// connections. With `start: false` the port stays free (a broker that is down).
    init(_ options: Options = Options(), start: Bool = true) throws {
        self.options = options
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("pushbridge-broker-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/data", withIntermediateDirectories: true)
        if !options.users.isEmpty { try Self.writePasswords(options.users, to: directory + "/passwd") }
        if let acl = options.acl { try acl.write(toFile: directory + "/acl", atomically: true, encoding: .utf8) }
        if options.tls { try Self.makeCertificates(in: directory, names: options.tlsNames) }
        // A free port can be taken by someone else before mosquitto binds it: retry.
        var attempt = 0
        while true {
            attempt += 1
            let p = try LoopbackPorts.free()
            let t = options.tls ? try LoopbackPorts.free() : nil
            if t == p { continue }
            try Self.writeConfig(options, directory: directory, port: p, tlsPort: t)
            if !start {
                (port, tlsPort) = (p, t)
                return
            }
            do {
                let started = try Self.launch(configFile: directory + "/mosquitto.conf", logFile: directory + "/mosquitto.log",
                                              ports: [p] + (t.map { [$0] } ?? []))
                (port, tlsPort) = (p, t)
                process.withLock { $0 = started }
                return
            } catch where attempt < 5 {
                continue
            }
        }
    }

    deinit {
        stop(signal: SIGKILL)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `true` while the broker process runs.
    var isRunning: Bool { process.withLock { $0?.isRunning ?? false } }

    /// Starts the broker (same port, same data); waits until it accepts connections.
    func start() throws {
        guard !isRunning else { return }
        let started = try Self.launch(configFile: configFile, logFile: logFile, ports: [port] + (tlsPort.map { [$0] } ?? []))
        process.withLock { $0 = started }
    }

    /// SIGTERM and wait: mosquitto saves its persistence file on the way out.
    func stop() {
        stop(signal: SIGTERM)
    }

    private func stop(signal: Int32) {
        let p = process.withLock { p -> ChildProcess? in defer { p = nil }; return p }
        p?.stop(signal: signal)
    }

    /// `stop()` then `start()`.
    func restart() throws {
        stop()
        try start()
    }

    /// Replaces the users (takes effect at the next start or restart).
    func setUsers(_ users: [String: String]) throws {
        try Self.writePasswords(users, to: passwordFile)
    }

    /// The broker's log so far.
    var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

    /// Every subscription the broker has installed since its directory was made, oldest
    /// first, from its log: mosquitto logs `<time>: <client id> <qos> <filter>` for each
    /// filter of a SUBSCRIBE once the subscription is in place, before it sends the SUBACK.
    /// Wait for one with `eventually { broker.subscriptions().contains { … } }`.
    func subscriptions() -> [(clientID: String, qos: Int, filter: String)] {
        log.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 4, parts[0].hasSuffix(":"), let qos = Int(parts[2]), (0...2).contains(qos) else { return nil }
            return (String(parts[1]), qos, String(parts[3]))
        }
    }

    // MARK: setup

    private static func writeConfig(_ o: Options, directory: String, port: Int, tlsPort: Int?) throws {
        var lines = [
            "per_listener_settings false",
            "user root",
            "persistence true",
            "persistence_location \(directory)/data/",
            "autosave_interval 0",
            "max_queued_messages 100000",
            "log_type error", "log_type warning", "log_type notice", "log_type information",
            "log_type subscribe",   // `subscriptions()`: a test waits for a SUBSCRIBE, never sleeps
            "connection_messages true",
            "listener \(port) 127.0.0.1",
        ]
        if let tlsPort {
            lines += ["listener \(tlsPort) 127.0.0.1",
                      "cafile \(directory)/ca.crt",
                      "certfile \(directory)/server.crt",
                      "keyfile \(directory)/server.key"]
        }
        if o.users.isEmpty {
            lines.append("allow_anonymous true")
        } else {
            lines += ["allow_anonymous false", "password_file \(directory)/passwd"]
        }
        if o.acl != nil { lines.append("acl_file \(directory)/acl") }
        lines += o.extraConfig
        try (lines.joined(separator: "\n") + "\n").write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
    }

    private static func launch(configFile: String, logFile: String, ports: [Int]) throws -> ChildProcess {
        let log = open(logFile, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard log >= 0 else { throw ProcessError(description: "cannot open \(logFile)") }
        defer { close(log) }
        let p = try ChildProcess("/usr/sbin/mosquitto", ["-c", configFile], stdout: log, stderr: log)
        let deadline = ContinuousClock.now + .seconds(10)
        while !ports.allSatisfy(LoopbackPorts.isAccepting) {
            if !p.isRunning || ContinuousClock.now > deadline {
                p.signal(SIGKILL)
                _ = p.waitSync(timeout: .seconds(5))
                let text = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
                throw ProcessError(description: "mosquitto did not start on \(ports): \(text.suffix(600))")
            }
            usleep(10_000)
        }
        return p
    }

    private static func writePasswords(_ users: [String: String], to file: String) throws {
        try? FileManager.default.removeItem(atPath: file)
        for (i, (user, password)) in users.sorted(by: { $0.key < $1.key }).enumerated() {
            try ManagedProcess.runChecked("/usr/bin/mosquitto_passwd",
                                          (i == 0 ? ["-c"] : []) + ["-b", file, user, password])
        }
    }

    /// A CA and a server certificate for `names`, with `openssl` (EC keys: fast).
    private static func makeCertificates(in dir: String, names: [String]) throws {
        let openssl = "/usr/bin/openssl"
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try ManagedProcess.runChecked(openssl, ["req", "-x509"] + ec + [
            "-days", "2", "-subj", "/CN=pushbridge test CA", "-keyout", "\(dir)/ca.key", "-out", "\(dir)/ca.crt",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        try ManagedProcess.runChecked(openssl, ["req"] + ec + [
            "-subj", "/CN=\(names.first ?? "localhost")", "-keyout", "\(dir)/server.key", "-out", "\(dir)/server.csr"])
        let sans = names.map { $0.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" } ? "IP:\($0)" : "DNS:\($0)" }
        try ("subjectAltName=\(sans.joined(separator: ","))\nbasicConstraints=CA:FALSE\n"
             + "extendedKeyUsage=serverAuth\n").write(toFile: "\(dir)/server.ext", atomically: true, encoding: .utf8)
        try ManagedProcess.runChecked(openssl, [
            "x509", "-req", "-in", "\(dir)/server.csr", "-CA", "\(dir)/ca.crt", "-CAkey", "\(dir)/ca.key",
            "-CAcreateserial", "-days", "2", "-out", "\(dir)/server.crt", "-extfile", "\(dir)/server.ext"])
    }
}
