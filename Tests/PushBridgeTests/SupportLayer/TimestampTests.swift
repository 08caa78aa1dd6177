import Foundation
import Testing
@testable import PushBridge

/// The timestamp's calendar fields, computed without the C library, are `gmtime_r`'s.
@Suite struct TimestampTests {
    static func gmtime(_ t: Int64) -> tm {
        var t = time_t(t)
        var parts = tm()
        gmtime_r(&t, &parts)
        return parts
    }

    static func same(_ t: Int64) -> Bool {
        let a = Timestamp.civil(t), b = gmtime(t)
        return a.tm_year == b.tm_year && a.tm_mon == b.tm_mon && a.tm_mday == b.tm_mday
            && a.tm_hour == b.tm_hour && a.tm_min == b.tm_min && a.tm_sec == b.tm_sec
    }

    @Test("civil(t) is gmtime_r(t): edges, leap days, centuries, far years and a sweep")
    func sameAsGmtime() {
        var samples: [Int64] = [0, -1, 1, 86_399, 86_400, -86_400, -86_401, 951_782_400, 951_868_799, 4_107_542_400,
                                -2_208_988_800, -62_135_596_800, -62_167_219_200, 253_402_300_799, 253_402_300_800,
                                1_764_612_345, -12_219_292_800, 32_503_680_000, -377_705_116_800, 9_000_000_000_000]
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<20_000 {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            samples.append(Int64(bitPattern: x % 400_000_000_000) - 200_000_000_000)
        }
        for day in stride(from: Int64(-800_000), through: 800_000, by: 997) { samples.append(day * 86_400 + day % 86_400) }
        for t in samples where !Self.same(t) {
            Issue.record("civil(\(t)) differs from gmtime_r")
        }
    }

    @Test("the display timestamp text is unchanged")
    func text() {
        #expect(Timestamp.iso8601(1_764_612_345.678) == "2025-12-01T18:05:45.678Z")
        #expect(Timestamp.iso8601(951_782_400) == "2000-02-29T00:00:00.000Z")
        #expect(Timestamp.iso8601(-62_135_596_800.001) == "0000-12-31T23:59:59.999Z")
        var bytes: [UInt8] = []
        Timestamp.appendQuotedISO8601(-1.5, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "\"1969-12-31T23:59:58.500Z\"")
    }
}
