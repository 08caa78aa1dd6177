import Foundation

/// A number of bytes as people write it: `10MB`, `512 KiB`, `200000`.
enum ByteCount {
    /// The bytes `text` names (KB, MB, GB powers of 1000; KiB, MiB, GiB powers of 1024;
    /// B or no unit: bytes), or `nil`.
    static func parse(_ text: String) -> Int? {
        let t = text.trimmingCharacters(in: .whitespaces)
        let digits = t.prefix { $0.isNumber || $0 == "." }
        guard !digits.isEmpty, let number = Double(digits), number.isFinite, number >= 0 else { return nil }
        let unit = t.dropFirst(digits.count).trimmingCharacters(in: .whitespaces).lowercased()
        let scale: Double
        switch unit {
        case "", "b": scale = 1
        case "kb", "k": scale = 1e3
        case "mb", "m": scale = 1e6
        case "gb", "g": scale = 1e9
        case "kib": scale = 1024
        case "mib": scale = 1_048_576
        case "gib": scale = 1_073_741_824
        default: return nil
        }
        let bytes = (number * scale).rounded()
        guard bytes < 1e15 else { return nil }
        return Int(bytes)
    }

    /// `10 MB`, `512 KB`, `12 bytes`: for messages.
    static func text(_ bytes: Int) -> String {
        if bytes >= 1_000_000 && bytes % 100_000 == 0 { return "\(Double(bytes) / 1e6) MB".replacingOccurrences(of: ".0 ", with: " ") }
        if bytes >= 1_000 && bytes % 100 == 0 { return "\(Double(bytes) / 1e3) KB".replacingOccurrences(of: ".0 ", with: " ") }
        return "\(bytes) bytes"
    }
}
