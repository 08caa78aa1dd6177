import Testing
@testable import PushBridge

/// `String(copyingUTF8:)` gives what `String(decoding:as:)` gives, every length around the
/// small-string bound, valid or not.
@Suite struct StringFromBytesTests {
    @Test func sameAsDecoding() {
        var samples: [[UInt8]] = [[], Array("a".utf8), Array("é".utf8), Array("😀".utf8)]
        for n in [14, 15, 16, 17, 100] {
            samples.append(Array(String(repeating: "k", count: n).utf8))
            samples.append(Array((String(repeating: "k", count: n - 1) + "é").utf8))
        }
        // Invalid: a lone continuation byte, a truncated sequence, a surrogate, an overlong form.
        samples += [[0x80], [0x61, 0xC3], [0xED, 0xA0, 0x80], [0xC0, 0xAF, 0x62], Array(repeating: 0xFF, count: 20)]
        for bytes in samples {
            let made = bytes.withUnsafeBufferPointer { String(copyingUTF8: $0) }
            let decoded = String(decoding: bytes, as: UTF8.self)
            #expect(made == decoded && Array(made.utf8) == Array(decoded.utf8), "\(bytes)")
        }
    }
}
