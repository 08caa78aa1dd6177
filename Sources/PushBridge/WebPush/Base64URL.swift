import Foundation

/// Base64url without padding (RFC 4648 section 5), as Web Push writes keys, salts and JWTs.
enum Base64URL {
    /// `bytes` as base64url, no `=` padding.
    static func encode(_ bytes: some Collection<UInt8>) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// The bytes of base64url `text` (padding optional); `nil` when it is not base64url.
    /// Standard base64's `+` and `/` are refused: a browser's PushSubscription never has them.
    static func decode(_ text: String) -> [UInt8]? {
        var body = Substring(text)
        while body.hasSuffix("=") { body.removeLast() }
        guard body.allSatisfy({ isAlphabet($0) }), body.count % 4 != 1 else { return nil }
        var standard = body.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard).map { Array($0) }
    }

    /// `true` for the 64 characters of the base64url alphabet.
    static func isAlphabet(_ c: Character) -> Bool {
        guard let a = c.asciiValue else { return false }
        return (a >= 0x41 && a <= 0x5A) || (a >= 0x61 && a <= 0x7A) || (a >= 0x30 && a <= 0x39) || a == 0x2D || a == 0x5F
    }
}
