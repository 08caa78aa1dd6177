import Foundation

/// A tiny leveled logger writing one line per event to standard error.
///
/// `text` lines look like `2026-11-29T15:42:18.123Z info  connected to localhost:1883`;
/// `json` lines are `{"ts":"…","level":"info","msg":"…",…fields}`.
public struct Logger: Sendable {
    /// Least severe level written.
    public var level: LogLevel
    /// Line format.
    public var format: LogFormat
    /// Where lines go; standard error by default.
    public let sink: @Sendable (String) -> Void

    /// A logger writing to standard error.
    public init(level: LogLevel = .info, format: LogFormat = .text,
                sink: @escaping @Sendable (String) -> Void = Logger.standardError) {
        self.level = level
        self.format = format
        self.sink = sink
    }

    /// Writes `line` and a newline to standard error with one `write(2)`.
    public static let standardError: @Sendable (String) -> Void = { line in
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = write(2, buffer.baseAddress! + offset, buffer.count - offset)
                if n <= 0 { break }
                offset += n
            }
        }
    }

    /// `true` when a message at `level` would be written.
    public func enabled(_ level: LogLevel) -> Bool { level >= self.level }

    /// Logs `message` with optional extra fields (`key=value` in text, members in JSON).
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String,
                    _ fields: KeyValuePairs<String, String> = [:]) {
        guard enabled(level) else { return }
        let ts = Timestamp.iso8601(Date().timeIntervalSince1970)
        switch format {
        case .text:
            var line = "\(ts) \(level.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) \(message())"
            for (k, v) in fields { line += " \(k)=\(v)" }
            sink(line)
        case .json:
            var object: [String: JSONValue] = ["ts": .string(ts), "level": .string(level.rawValue),
                                               "msg": .string(message())]
            for (k, v) in fields { object[k] = .string(v) }
            sink(JSONValue.object(object).jsonText)
        }
    }

    public func debug(_ m: @autoclosure () -> String) { log(.debug, m()) }
    public func info(_ m: @autoclosure () -> String) { log(.info, m()) }
    public func warning(_ m: @autoclosure () -> String) { log(.warning, m()) }
    public func error(_ m: @autoclosure () -> String) { log(.error, m()) }
}

/// Timestamp formatting shared by logs and wire formats.
public enum Timestamp {
    /// UTC ISO 8601 with milliseconds: `2026-11-29T15:42:18.123Z`.
    public static func iso8601(_ seconds: Double) -> String {
        var t = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&t, &parts)
        let ms = Int((seconds - seconds.rounded(.down)) * 1000)
        func pad(_ v: Int32, _ w: Int) -> String {
            let s = String(v); return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(ms), 3))Z"
    }
}
