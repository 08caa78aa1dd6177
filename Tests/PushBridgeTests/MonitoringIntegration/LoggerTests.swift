import Foundation
import Synchronization
import Testing
@testable import PushBridge

/// `BridgeLogger`: one line per event in both formats, levels honoured, fields, escaping.
@Suite("BridgeLogger")
struct LoggerTests {
    /// A logger at `level` in `format` whose lines land in the returned collector.
    static func capturing(_ level: LogLevel, _ format: LogFormat) -> (BridgeLogger, LogCollector) {
        let captured = LogCollector()
        return (captured.logger(level: level, format: format), captured)
    }

    static let t = 1_795_966_938.123   // 2026-11-29T15:42:18.123Z

    @Test("text: timestamp, level padded to 7, message, fields as key=value")
    func textLine() {
        #expect(BridgeLogger.line(level: .info, message: "connected to localhost:1883", format: .text, time: Self.t)
                == "2026-11-29T15:42:18.123Z info    connected to localhost:1883")
        #expect(BridgeLogger.line(level: .warning, message: "slow", fields: ["topic": "a/b", "ms": "12"], format: .text, time: Self.t)
                == "2026-11-29T15:42:18.123Z warning slow topic=a/b ms=12")
        #expect(BridgeLogger.line(level: .error, message: "x", format: .text, time: Self.t) == "2026-11-29T15:42:18.123Z error   x")
        #expect(BridgeLogger.line(level: .debug, message: "", format: .text, time: Self.t) == "2026-11-29T15:42:18.123Z debug   ")
    }

    @Test("text: line breaks and control characters are escaped, so an event is one line")
    func textEscapes() {
        let line = BridgeLogger.line(level: .error, message: "first\nsecond\r\n\tthird\u{1B}[2J\u{7F}\u{0}",
                               fields: ["k\n": "v\nw"], format: .text, time: Self.t)
        #expect(line == "2026-11-29T15:42:18.123Z error   first\\nsecond\\r\\n\\tthird\\u{1B}[2J\\u{7F}\\u{00} k\\n=v\\nw")
        #expect(!line.contains("\n") && !line.contains("\r"))
        #expect(BridgeLogger.escaped("plain text, ünïcode ✓") == "plain text, ünïcode ✓")
        #expect(BridgeLogger.escaped("\u{1F}") == "\\u{1F}")
    }

    @Test("json: one object per line with ts, level, msg and the fields; a field cannot replace them")
    func jsonLine() throws {
        let line = BridgeLogger.line(level: .warning, message: "two\nlines \"quoted\"",
                               fields: ["topic": "a/b", "msg": "spoof", "level": "error"], format: .json, time: Self.t)
        #expect(!line.contains("\n"))
        let v = try decodeJSON(Array(line.utf8))
        #expect(v == .object(["ts": .string("2026-11-29T15:42:18.123Z"), "level": .string("warning"),
                              "msg": .string("two\nlines \"quoted\""), "topic": .string("a/b")]))
    }

    @Test("levels: only events at or above the logger's level are written", arguments: LogLevel.allCases)
    func levelsHonoured(level: LogLevel) {
        let (logger, captured) = Self.capturing(level, .text)
        logger.debug("d")
        logger.info("i")
        logger.warning("w")
        logger.error("e")
        logger.log(.info, "f", ["k": "v"])
        let written = captured.lines.map { $0.split(separator: " ")[1] }
        let expected = ["debug", "info", "warning", "error", "info"].filter { LogLevel(rawValue: $0)! >= level }
        #expect(written.map(String.init) == expected)
    }

    @Test("timestamps are UTC, rounded to the millisecond")
    func timestamps() {
        #expect(Timestamp.iso8601(Self.t) == "2026-11-29T15:42:18.123Z")
        #expect(Timestamp.iso8601(0) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.iso8601(59.9996) == "1970-01-01T00:01:00.000Z")
        #expect(Timestamp.iso8601(1.0005) == "1970-01-01T00:00:01.001Z")
        #expect(Timestamp.iso8601(-0.5) == "1969-12-31T23:59:59.500Z")
    }

    @Test("a message below the level is not even built")
    func lazyMessage() {
        let (logger, captured) = Self.capturing(.warning, .json)
        let built = Atomic<Int>(0)
        func expensive() -> String { built.add(1, ordering: .relaxed); return "payload" }
        logger.debug(expensive())
        logger.info(expensive())
        #expect(built.load(ordering: .relaxed) == 0)
        logger.warning(expensive())
        #expect(built.load(ordering: .relaxed) == 1)
        #expect(captured.lines.count == 1)
    }
}
