/// The media types Apple's notifications can attach, recognised by their first bytes
/// (docs/attachments.md, "Types and limits"): never by a name, an extension or a header.
enum MediaType: String, Sendable, CaseIterable {
    case jpeg, png, gif
    case mp3, m4a, aac, wav, aiff
    case mp4, m4v, mov, mpeg

    /// The three kinds `attachments.max_bytes` limits.
    enum Kind: String, Sendable, CaseIterable {
        case image, audio, video
    }

    var kind: Kind {
        switch self {
        case .jpeg, .png, .gif: .image
        case .mp3, .m4a, .aac, .wav, .aiff: .audio
        case .mp4, .m4v, .mov, .mpeg: .video
        }
    }

    /// The MIME type (`NotificationAttachment.type`).
    var mime: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .mp3: "audio/mpeg"
        case .m4a: "audio/mp4"
        case .aac: "audio/aac"
        case .wav: "audio/wav"
        case .aiff: "audio/aiff"
        case .mp4: "video/mp4"
        case .m4v: "video/x-m4v"
        case .mov: "video/quicktime"
        case .mpeg: "video/mpeg"
        }
    }

    /// The file name extension the store serves it under.
    var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png, .gif, .mp3, .m4a, .aac, .wav, .mp4, .m4v, .mov: rawValue
        case .aiff: "aiff"
        case .mpeg: "mpg"
        }
    }

    /// The type whose store extension is `ext`.
    init?(fileExtension ext: String) {
        guard let found = Self.allCases.first(where: { $0.fileExtension == ext }) else { return nil }
        self = found
    }

    /// How many first bytes `sniff` needs to tell every type apart (fewer are enough for some).
    static let sniffLength = 16

    /// The type of a body starting with `head` (at least `sniffLength` bytes when the body
    /// has them), or `nil` when it is none of Apple's supported types.
    static func sniff(_ head: some Collection<UInt8>) -> MediaType? {
        let b = Array(head.prefix(sniffLength))
        func starts(_ bytes: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + bytes.count && Array(b[offset..<offset + bytes.count]) == bytes
        }
        func ascii(_ text: String, at offset: Int = 0) -> Bool { starts(Array(text.utf8), at: offset) }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if ascii("GIF87a") || ascii("GIF89a") { return .gif }
        if ascii("RIFF") && ascii("WAVE", at: 8) { return .wav }
        if ascii("FORM") && (ascii("AIFF", at: 8) || ascii("AIFC", at: 8)) { return .aiff }
        if ascii("ftyp", at: 4), b.count >= 12 { return isoBrand(String(decoding: b[8..<12], as: UTF8.self)) }
        // A QuickTime file that starts with another atom than `ftyp` (older cameras).
        if b.count >= 8, ["moov", "mdat", "wide", "free", "skip", "pnot"].contains(where: { ascii($0, at: 4) }) { return .mov }
        // MPEG program stream pack header, or a video sequence header.
        if starts([0x00, 0x00, 0x01, 0xBA]) || starts([0x00, 0x00, 0x01, 0xB3]) { return .mpeg }
        if ascii("ID3") { return .mp3 }
        if b.count >= 2, b[0] == 0xFF {
            // ADTS (AAC): sync word 0xFFF, layer bits 00; MPEG audio layer III: sync 0xFFE, layer bits 01.
            if b[1] & 0xF6 == 0xF0 { return .aac }
            if b[1] & 0xE0 == 0xE0, b[1] & 0x06 == 0x02, b.count >= 3, b[2] & 0xF0 != 0xF0, b[2] & 0x0C != 0x0C { return .mp3 }
        }
        return nil
    }

    /// The type an ISO base media file's major brand names (`ftyp`), or `nil`.
    private static func isoBrand(_ brand: String) -> MediaType? {
        switch brand {
        case "M4A ", "M4B ", "M4P ", "F4A ", "F4B ": return .m4a
        case "M4V ", "M4VH", "M4VP": return .m4v
        case "qt  ": return .mov
        case "isom", "iso2", "iso3", "iso4", "iso5", "iso6", "mp41", "mp42", "avc1", "MSNV", "dash", "NDAS",
             "3gp4", "3gp5", "3gp6", "3g2a", "mmp4", "XAVC", "F4V ", "f4v ":
            return .mp4
        default: return nil
        }
    }
}
