import Foundation
import Synchronization

/// A tiny leveled logger writing one line per event to standard error.
///
/// `text` lines look like `2026-11-29T15:42:18.123Z info    connected to localhost:1883`;
/// `json` lines are `{"level":"info","msg":"…","ts":"…",…fields}`. Either way an event is
/// exactly one line: in `text` a message's line breaks and other control characters are
/// escaped (`\n`, `\r`, `\t`, `\u{1B}`), in `json` the JSON string escapes do it.
/// Messages never carry payload text above `debug` (the bridge's rule, see README "Logs").
public struct BridgeLogger: Sendable {
    /// Least severe level written.
    public var level: LogLevel
    /// Line format.
    public var format: LogFormat
    /// Where lines go; standard error by default. Called with one line, without its newline.
    public let sink: @Sendable (String) -> Void

    /// A logger writing to standard error.
    public init(level: LogLevel = .info, format: LogFormat = .text,
                sink: @escaping @Sendable (String) -> Void = BridgeLogger.standardError) {
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
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                offset += n
            }
        }
    }

    /// `true` when a message at `level` would be written.
    public func enabled(_ level: LogLevel) -> Bool { level >= self.level }

    /// Logs `message` with optional extra fields (`key=value` in text, members in JSON).
    ///
    /// In JSON a field named `ts`, `level` or `msg` does not replace the line's own member.
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String,
                    _ fields: KeyValuePairs<String, String> = [:]) {
        guard enabled(level) else { return }
        sink(Self.line(level: level, message: message(), fields: fields, format: format,
                       time: Date().timeIntervalSince1970))
    }

    /// The line for one event (without the newline); what `log` hands to the sink.
    package static func line(level: LogLevel, message: String, fields: KeyValuePairs<String, String> = [:],
                            format: LogFormat, time: Double) -> String {
        let ts = Timestamp.iso8601(time)
        switch format {
        case .text:
            var line = "\(ts) \(level.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) \(escaped(message))"
            for (k, v) in fields { line += " \(escaped(k))=\(escaped(v))" }
            return line
        case .json:
            var object: JSONObject = [:]
            for (k, v) in fields { object[k] = .string(v) }
            object["ts"] = .string(ts)
            object["level"] = .string(level.rawValue)
            object["msg"] = .string(message)
            return JSONValue.object(object).jsonText
        }
    }

    /// `text` with control characters escaped, so it stays on one line and cannot move a
    /// terminal's cursor: `\n`, `\r`, `\t`, and `\u{XX}` for the other C0 controls and DEL.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return text }
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 8)
        for c in text.unicodeScalars {
            switch c.value {
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0..<0x20, 0x7F:
                let hex = String(c.value, radix: 16, uppercase: true)
                out += "\\u{" + (hex.count < 2 ? "0" : "") + hex + "}"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// Logs at `debug` (the only level that may carry payload text).
    public func debug(_ m: @autoclosure () -> String) { log(.debug, m()) }
    /// Logs at `info`.
    public func info(_ m: @autoclosure () -> String) { log(.info, m()) }
    /// Logs at `warning`.
    public func warning(_ m: @autoclosure () -> String) { log(.warning, m()) }
    /// Logs at `error`.
    public func error(_ m: @autoclosure () -> String) { log(.error, m()) }
}

/// Timestamp formatting shared by logs and wire formats.
package enum Timestamp {
    /// UTC ISO 8601 with milliseconds: `2026-11-29T15:42:18.123Z`.
    /// Rounded to the nearest millisecond, so `….123` (stored as `….12299…`) reads `.123`.
    package static func iso8601(_ seconds: Double) -> String {
        let (parts, ms) = split(seconds)
        let year = Int(parts.tm_year) + 1900
        if year >= 0 && year <= 9999 {
            // The common case, written digit by digit (same text as below).
            return String(unsafeUninitializedCapacity: 24) { fill($0, parts, ms) ? 24 : 0 }
        }
        func pad(_ v: Int32, _ w: Int) -> String {
            let s = String(v); return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(ms), 3))Z"
    }

    /// Appends `iso8601(seconds)` as a quoted JSON string (the same bytes `JSONValue`
    /// writes for that string), without making the string first.
    static func appendQuotedISO8601(_ seconds: Double, to bytes: inout [UInt8]) {
        bytes.append { appendQuotedISO8601(seconds, to: &$0) }
    }

    /// As above, into a byte buffer.
    ///
    /// The text up to the milliseconds (`2026-11-29T15:42:18.`) of the last second written is
    /// kept: a display message's timestamp mostly falls in the same second as the one before,
    /// and copying those 20 bytes costs a fifth of computing them.
    static func appendQuotedISO8601(_ seconds: Double, to bytes: inout ByteBuffer) {
        let (second, ms) = secondAndMilliseconds(seconds)
        // The kept text: `"` and the 20 bytes up to the milliseconds.
        let kept = lastSecond.withLock { last -> (UInt64, UInt64, UInt64, UInt64)? in
            guard let last, last.second == second else { return nil }
            return last.text
        }
        if var text = kept {
            // The milliseconds' three digits and `Z"` after them.
            withUnsafeMutableBytes(of: &text) { raw in
                raw[21] = UInt8(ascii: "0") + UInt8(ms / 100)
                raw[22] = UInt8(ascii: "0") + UInt8(ms / 10 % 10)
                raw[23] = UInt8(ascii: "0") + UInt8(ms % 10)
                raw[24] = UInt8(ascii: "Z")
                raw[25] = UInt8(ascii: "\"")
                bytes.append(UnsafeBufferPointer(rebasing: raw.assumingMemoryBound(to: UInt8.self)[..<26]))
            }
            return
        }
        let parts = civil(second)
        let written = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { out -> Bool in
            guard fill(out, parts, ms) else { return false }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(UnsafeBufferPointer(out))
            bytes.append(UInt8(ascii: "\""))
            var text: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            withUnsafeMutableBytes(of: &text) { raw in
                raw[0] = UInt8(ascii: "\"")
                for i in 0..<20 { raw[1 + i] = out[i] }
            }
            lastSecond.withLock { $0 = (second, text) }
            return true
        }
        if !written { JSONValue.writeString(iso8601(seconds), to: &bytes) }
    }

    /// The last second `appendQuotedISO8601` wrote (UNIX seconds), and its text: `"` and the 20
    /// bytes up to the milliseconds, in 32 bytes (room for the rest).
    private static let lastSecond = Mutex<(second: Int64, text: (UInt64, UInt64, UInt64, UInt64))?>(nil)

    /// The UTC calendar fields and the milliseconds of `seconds`, rounded to the nearest millisecond.
    private static func split(_ seconds: Double) -> (tm, Int) {
        let (second, ms) = secondAndMilliseconds(seconds)
        return (civil(second), ms)
    }

    /// The whole UNIX second of `seconds` (toward the past) and its milliseconds, 0…999,
    /// rounded to the nearest millisecond.
    private static func secondAndMilliseconds(_ seconds: Double) -> (Int64, Int) {
        let milliseconds = Int64((seconds * 1000).rounded())
        let (quotient, remainder) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let second = remainder < 0 ? quotient - 1 : quotient
        return (second, Int(milliseconds - second * 1000))
    }

    /// What `gmtime_r` gives for `t` (the proleptic Gregorian calendar, UTC), computed in a few
    /// integer steps (H. Hinnant's `civil_from_days`) instead of the C library's call, which
    /// took most of a display message's timestamp. Only the date and time fields are set.
    static func civil(_ t: Int64) -> tm {
        let days = t >= 0 ? t / 86_400 : (t - 86_399) / 86_400
        let secondOfDay = t - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097                                                  // 0…146096
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365  // 0…399
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)   // 0…365, from 1 March
        let shiftedMonth = (5 * dayOfYear + 2) / 153                                       // 0…11, 0 = March
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9                // 1…12
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        var parts = tm()
        parts.tm_year = Int32(truncatingIfNeeded: year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        parts.tm_hour = Int32(secondOfDay / 3600)
        parts.tm_min = Int32(secondOfDay % 3600 / 60)
        parts.tm_sec = Int32(secondOfDay % 60)
        return parts
    }

    /// Writes the 24 bytes of the common case (years 0–9999) digit by digit; `false` for
    /// other years (written nothing).
    private static func fill(_ out: UnsafeMutableBufferPointer<UInt8>, _ parts: tm, _ ms: Int) -> Bool {
        let year = Int(parts.tm_year) + 1900
        guard year >= 0 && year <= 9999 else { return false }
        func put(_ v: Int, _ width: Int, at position: Int) {
            var v = v
            for i in stride(from: position + width - 1, through: position, by: -1) {
                out[i] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
            }
        }
        put(year, 4, at: 0); out[4] = UInt8(ascii: "-")
        put(Int(parts.tm_mon) + 1, 2, at: 5); out[7] = UInt8(ascii: "-")
        put(Int(parts.tm_mday), 2, at: 8); out[10] = UInt8(ascii: "T")
        put(Int(parts.tm_hour), 2, at: 11); out[13] = UInt8(ascii: ":")
        put(Int(parts.tm_min), 2, at: 14); out[16] = UInt8(ascii: ":")
        put(Int(parts.tm_sec), 2, at: 17); out[19] = UInt8(ascii: ".")
        put(ms, 3, at: 20); out[23] = UInt8(ascii: "Z")
        return true
    }
}
