import Foundation
import Testing
@testable import PushBridge

/// `MediaType.sniff`: every supported type from its first bytes, the look-alikes refused,
/// and `ByteCount` for the limits.
@Suite struct MediaTypeTests {
    static func bytes(_ parts: [Any]) -> [UInt8] {
        var out: [UInt8] = []
        for p in parts {
            if let s = p as? String { out += Array(s.utf8) } else if let b = p as? [Int] { out += b.map { UInt8($0) } }
        }
        return out + [UInt8](repeating: 0, count: 16)
    }

    static let cases: [([UInt8], MediaType)] = [
        (bytes([[0xFF, 0xD8, 0xFF, 0xE0]]), .jpeg),
        (bytes([[0xFF, 0xD8, 0xFF, 0xDB]]), .jpeg),
        (bytes([[0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]]), .png),
        (bytes(["GIF89a"]), .gif), (bytes(["GIF87a"]), .gif),
        (bytes(["ID3", [0x04, 0x00]]), .mp3),
        (bytes([[0xFF, 0xFB, 0x90, 0x64]]), .mp3),  // MPEG-1 layer III frame header
        (bytes([[0xFF, 0xF1, 0x50, 0x80]]), .aac),  // ADTS
        (bytes(["RIFF", [0x24, 0, 0, 0], "WAVEfmt "]), .wav),
        (bytes(["FORM", [0, 0, 0, 0x2E], "AIFFCOMM"]), .aiff),
        (bytes(["FORM", [0, 0, 0, 0x2E], "AIFCFVER"]), .aiff),
        (bytes([[0, 0, 0, 0x20], "ftypM4A ", [0, 0, 0, 0]]), .m4a),
        (bytes([[0, 0, 0, 0x20], "ftypisom", [0, 0, 2, 0]]), .mp4),
        (bytes([[0, 0, 0, 0x18], "ftypmp42", [0, 0, 0, 0]]), .mp4),
        (bytes([[0, 0, 0, 0x1C], "ftypM4V ", [0, 0, 0, 1]]), .m4v),
        (bytes([[0, 0, 0, 0x14], "ftypqt  ", [0x20, 0x05, 0x03, 0]]), .mov),
        (bytes([[0, 0, 0, 0x08], "wide"]), .mov),
        (bytes([[0, 0, 0x10, 0], "mdat"]), .mov),
        (bytes([[0x00, 0x00, 0x01, 0xBA, 0x44]]), .mpeg),
        (bytes([[0x00, 0x00, 0x01, 0xB3, 0x14]]), .mpeg),
    ]

    @Test(arguments: 0..<cases.count)
    func recognisesEachType(index: Int) {
        let (head, type) = Self.cases[index]
        #expect(MediaType.sniff(head) == type)
        #expect(MediaType(fileExtension: type.fileExtension) == type)
        #expect(NotificationAttachment.uniformTypes[type.mime] != nil, "no UTI for \(type.mime)")
    }

    static let refused: [[UInt8]] = [
        [], Array("hello, not a picture".utf8), Array("{\"after\":{}}".utf8),
        bytes(["RIFF", [0, 0, 0, 0], "AVI LIST"]),          // AVI is not on Apple's list
        bytes([[0, 0, 0, 0x20], "ftypheic", [0, 0, 0, 0]]),   // HEIC
        bytes(["BM", [0x36, 0, 0, 0]]),                      // BMP
        bytes([[0x1A, 0x45, 0xDF, 0xA3]]),                   // Matroska / WebM
        bytes(["%PDF-1.7"]),
        [0xFF, 0xD8],                                        // a JPEG cut after two bytes
    ]

    @Test(arguments: 0..<refused.count)
    func refusesEverythingElse(index: Int) {
        #expect(MediaType.sniff(Self.refused[index]) == nil)
    }

    @Test func kindsAndNames() {
        #expect(MediaType.allCases.filter { $0.kind == .image }.map(\.mime) == ["image/jpeg", "image/png", "image/gif"])
        #expect(MediaType.allCases.filter { $0.kind == .video }.count == 4)
        #expect(MediaType.jpeg.fileExtension == "jpg" && MediaType.mpeg.fileExtension == "mpg")
        #expect(NotificationAttachment(identifier: "a", type: "image/jpeg", size: 1, file: "/x").typeHint == "public.jpeg")
        #expect(NotificationAttachment(identifier: "a", type: "text/plain", size: 1, file: "/x").typeHint == "public.data")
    }

    @Test(arguments: [("10MB", 10_000_000), ("5 MB", 5_000_000), ("512KiB", 524_288), ("200000", 200_000),
                      ("1.5GB", 1_500_000_000), ("64kb", 64_000), ("3MiB", 3_145_728), ("7b", 7)])
    func byteCounts(text: String, bytes: Int) {
        #expect(ByteCount.parse(text) == bytes)
    }

    @Test(arguments: ["", "MB", "ten MB", "-5MB", "5XB", "1e3"])
    func badByteCounts(text: String) {
        #expect(ByteCount.parse(text) == nil)
    }

    @Test func checkedBytesNameTheReason() {
        var limits = AttachmentsConfig()
        limits.maxImage = 100
        guard case .failure(let empty) = CheckedBytes.check([], limits: limits) else { Issue.record("empty passed"); return }
        #expect(empty.failure == .empty)
        guard case .failure(let text) = CheckedBytes.check(Array("plain text here!".utf8), limits: limits) else { Issue.record("text passed"); return }
        #expect(text.failure == .unsupportedType && text.detail.contains("look like text"))
        let big = [0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0, count: 200)
        guard case .failure(let large) = CheckedBytes.check(big, limits: limits) else { Issue.record("large passed"); return }
        #expect(large.failure == .tooLarge && large.detail.contains("image limit of 100 bytes"))
        #expect((try? CheckedBytes.check(Array(big.prefix(50)), limits: limits).get()) == .jpeg)
    }
}
