import Foundation

/// Base64url without padding (RFC 4648 section 5), as Web Push writes keys, salts and JWTs.
enum Base64URL {
    /// The 64 characters, in the order of their values.
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// `bytes` as base64url, no `=` padding (written straight into the string's storage: a
    /// push message encodes several keys and a JWT each).
    static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        let full = input.count / 3, rest = input.count % 3
        let length = full * 4 + (rest == 0 ? 0 : rest + 1)
        return alphabet.withUnsafeBufferPointer { table in
            String(unsafeUninitializedCapacity: length) { out in
                var o = 0
                var i = 0
                while i + 3 <= input.count {
                    let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                    out[o] = table[Int(n >> 18)]
                    out[o + 1] = table[Int(n >> 12 & 63)]
                    out[o + 2] = table[Int(n >> 6 & 63)]
                    out[o + 3] = table[Int(n & 63)]
                    i += 3
                    o += 4
                }
                if rest > 0 {
                    let n = UInt32(input[i]) << 16 | (rest == 2 ? UInt32(input[i + 1]) << 8 : 0)
                    out[o] = table[Int(n >> 18)]
                    out[o + 1] = table[Int(n >> 12 & 63)]
                    if rest == 2 { out[o + 2] = table[Int(n >> 6 & 63)] }
                }
                return length
            }
        }
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
