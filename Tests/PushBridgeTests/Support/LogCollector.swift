@testable import PushBridge

/// The log lines of something under test, kept for assertions and awaited on.
///
/// `let log = LogCollector()`; give `log.logger()` to the code under test (or `append` lines
/// from elsewhere, e.g. a child's stderr); then `log.contains("connected to")`, or
/// `try await log.waitFor("connected") { $0.contains("connected to") }` which returns
/// as soon as such a line is logged (no polling) and throws after the timeout.
final class LogCollector: Sendable {
    private let watched = Watched<[String]>([])

    init() {}

    /// A logger at `level` in `format` whose lines land here (its sink may be called from any thread).
    func logger(level: LogLevel = .debug, format: LogFormat = .text) -> BridgeLogger {
        BridgeLogger(level: level, format: format) { [watched] line in watched.update { $0.append(line) } }
    }

    /// Records one line.
    func append(_ line: String) { watched.update { $0.append(line) } }

    /// Every line so far, oldest first.
    var lines: [String] { watched.value }

    /// `true` when some line contains `text`.
    func contains(_ text: String) -> Bool { lines.contains { $0.contains(text) } }

    /// `true` when some line satisfies `match`.
    func contains(where match: (String) -> Bool) -> Bool { lines.contains(where: match) }

    /// The lines that contain `text`.
    func lines(containing text: String) -> [String] { lines.filter { $0.contains(text) } }

    /// Waits until a line satisfying `match` has been logged (now or earlier) and returns it.
    @discardableResult
    func waitFor(_ what: String, timeout: Duration = .seconds(10),
                 _ match: @escaping @Sendable (String) -> Bool) async throws -> String {
        let scan = Scan()
        let all = try await watched.wait(for: "\(what); last lines: \(lines.suffix(8))", timeout: timeout) {
            scan.count(in: $0, match) > 0
        }
        return all.first(where: match)!
    }

    /// Waits until a line containing `text` has been logged and returns it.
    @discardableResult
    func waitFor(line text: String, timeout: Duration = .seconds(10)) async throws -> String {
        try await waitFor("a line with '\(text)'", timeout: timeout) { $0.contains(text) }
    }

    /// Waits until `count` lines satisfy `match`; returns them.
    @discardableResult
    func waitFor(_ what: String, count: Int, timeout: Duration = .seconds(10),
                 _ match: @escaping @Sendable (String) -> Bool) async throws -> [String] {
        let scan = Scan()
        let all = try await watched.wait(for: "\(count)× \(what); last lines: \(lines.suffix(8))", timeout: timeout) {
            scan.count(in: $0, match) >= count
        }
        return all.filter(match)
    }

    /// How far one wait has read the lines, so each line is matched once, not once per update.
    /// `@unchecked Sendable`: only the wait's condition touches it, and `Watched` runs that
    /// under its lock, one call at a time.
    private final class Scan: @unchecked Sendable {
        private var next = 0
        private var matches = 0

        /// Matches the lines not seen yet; returns the number of matches so far.
        func count(in lines: [String], _ match: (String) -> Bool) -> Int {
            while next < lines.count {
                if match(lines[next]) { matches += 1 }
                next += 1
            }
            return matches
        }
    }
}
