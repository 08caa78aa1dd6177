/// A usage error: printed with a hint, exit code 2.
struct UsageError: Error {
    let message: String
}

/// Parsed command line: the command, its options and flags.
struct Arguments {
    var command: String
    var options: [String: [String]] = [:]
    var flags: Set<String> = []
    /// Arguments that are not options (`ack ALERT_ID`), for the commands that take them.
    var positionals: [String] = []

    /// Options that take a value, per command.
    static let valued: Set<String> = ["-c", "--config", "-t", "--topic", "-m", "--message", "-f", "--file",
                                      "-p", "--property", "--samples", "--url", "--at", "--snooze", "--by", "--attach"]
    static let aliases: [String: String] = ["--config": "-c", "--topic": "-t", "--message": "-m",
                                            "--file": "-f", "--property": "-p"]
    static let allowed: [String: Set<String>] = [
        "run": ["-c"],
        "check": ["-c"],
        "try": ["-c", "-t", "-m", "-f", "-p", "--json", "--samples", "--retain", "--at", "--attach"],
        "monitor": ["-c", "--once", "--json"],
        "health": ["-c", "--url"],
        "schema": [],
        "alerts": ["-c", "--json"],
        "people": ["-c", "--json"],
        "ack": ["-c", "--snooze", "--by"],
    ]
    /// Commands that take positional arguments.
    static let takesPositionals: Set<String> = ["ack"]

    init(_ argv: [String]) throws(UsageError) {
        guard let first = argv.first else { throw UsageError(message: "missing command") }
        command = first
        guard let allowed = Self.allowed[command] else {
            throw UsageError(message: "unknown command '\(command)'")
        }
        var i = 1
        while i < argv.count {
            let raw = argv[i]
            let name = Self.aliases[raw] ?? raw
            if Self.takesPositionals.contains(command), !raw.hasPrefix("-") {
                positionals.append(raw)
                i += 1
                continue
            }
            guard allowed.contains(name) else {
                throw UsageError(message: "'\(raw)' is not an option of '\(command)'")
            }
            if Self.valued.contains(name) {
                guard i + 1 < argv.count else { throw UsageError(message: "'\(raw)' needs a value") }
                options[name, default: []].append(argv[i + 1])
                i += 2
            } else {
                flags.insert(name)
                i += 1
            }
        }
    }

    func value(_ name: String) -> String? { options[name]?.last }
}
