/// APNs' checks on a request, with APNs' rejection reasons (`BadCollapseId`, `PayloadTooLarge`, …).
extension NotificationRequest {
    /// Largest `apns-collapse-id` in bytes.
    static let maxCollapseIDBytes = 64

    /// Throws the first reason APNs would reject this request for.
    ///
    /// The body size is measured on the JSON body the request would be sent with.
    func validate() throws(Rejection) {
        if !Self.isValidID(id) {
            throw Rejection(.badMessageId, "apns-id \"\(id)\" is not a lowercase 8-4-4-4-12 UUID")
        }
        if let c = collapseID, c.utf8.count > Self.maxCollapseIDBytes {
            throw Rejection(.badCollapseId, "apns-collapse-id is \(c.utf8.count) bytes; at most \(Self.maxCollapseIDBytes)")
        }
        if let e = expiration, e < 0 {
            throw Rejection(.badExpirationDate, "apns-expiration \(e) is negative")
        }
        guard [10, 5, 1].contains(priority) else {
            throw Rejection(.badPriority, "apns-priority must be 10, 5 or 1, got \(priority)")
        }
        if pushType == .background && priority == 10 {
            throw Rejection(.badPriority, "background pushes must use priority 5 (or 1), got 10")
        }
        let limit = pushType?.maxBodyBytes ?? 4096
        // The exact size needs the body built and serialized; a cheap upper bound spares
        // that for every request that is clearly small enough.
        if apnsBodySizeBound <= limit { return }
        let size = apnsBody.jsonText.utf8.count
        if size > limit {
            throw Rejection(.payloadTooLarge, "APNs body is \(size) bytes; the limit for \(pushTypeName) is \(limit)")
        }
    }

    /// `true` for a lowercase 8-4-4-4-12 hexadecimal UUID.
    ///
    /// Eight bytes at a time: the four dashes are checked and replaced by `0`, then every byte
    /// of each word must be `0`-`9` or `a`-`f` (`isHexWord`). ~60 instructions against ~300 for a
    /// byte loop; it runs for every request (`validate`).
    static func isValidID(_ s: String) -> Bool {
        func check(_ u: UnsafeBufferPointer<UInt8>) -> Bool {
            guard u.count == 36, let base = u.baseAddress else { return false }
            let raw = UnsafeRawPointer(base)
            func word(_ offset: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
            // Bytes 8 and 13 of the string are bytes 0 and 5 of the second word; 18 and 23
            // are bytes 2 and 7 of the third.
            let dashes1: UInt64 = 0x0000_FF00_0000_00FF, dashes2: UInt64 = 0xFF00_0000_00FF_0000
            let w1 = word(8), w2 = word(16)
            guard w1 & dashes1 == 0x0000_2D00_0000_002D, w2 & dashes2 == 0x2D00_0000_002D_0000 else { return false }
            let zeros: UInt64 = 0x3030_3030_3030_3030
            let tail = UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 32, as: UInt32.self)))
            return isHexWord(word(0)) && isHexWord((w1 & ~dashes1) | (zeros & dashes1))
                && isHexWord((w2 & ~dashes2) | (zeros & dashes2)) && isHexWord(word(24))
                && isHexWord(tail | 0x3030_3030_0000_0000)
        }
        // In place for native strings (no copy of the bytes).
        if let result = s.utf8.withContiguousStorageIfAvailable(check) { return result }
        return Array(s.utf8).withUnsafeBufferPointer(check)
    }

    /// `true` when each of the eight bytes of `x` is `0`-`9` or `a`-`f`.
    ///
    /// For bytes below 0x80, adding `0x80 - lo` to each sets its top bit exactly when it is
    /// ≥ `lo`, and adding `0x7F - hi` sets it exactly when it is > `hi`; neither sum carries
    /// into the next byte.
    static func isHexWord(_ x: UInt64) -> Bool {
        let high: UInt64 = 0x8080_8080_8080_8080
        guard x & high == 0 else { return false }
        func inRange(_ lo: UInt64, _ hi: UInt64) -> UInt64 {
            let each: UInt64 = 0x0101_0101_0101_0101
            return (x &+ each &* (0x80 - lo)) & ~(x &+ each &* (0x7F - hi)) & high
        }
        return inRange(0x30, 0x39) | inRange(0x61, 0x66) == high
    }

    /// A new random lowercase UUID.
    package static func newID() -> String {
        let (high, low) = IDGenerator.shared.next128()
        return uuidString(high: high, low: low)
    }

    /// The id of the notification the route at `index` makes of the message `id` (a route
    /// with `continue: true` hands it on): the same for a replayed message, so the shared
    /// memory (`state.redis`) answers it as it did the first time. FNV-1a 64 of the two, twice.
    static func derivedID(_ id: String, index: Int) -> String {
        func fnv(_ text: String, seed: UInt64) -> UInt64 {
            var h = seed
            for byte in text.utf8 { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return h
        }
        let text = id + "/" + String(index)
        return uuidString(high: fnv(text, seed: 0xcbf2_9ce4_8422_2325), low: fnv(text, seed: 0x6c62_272e_07bb_0142))
    }

    /// A lowercase version-4-shaped UUID from 128 bits.
    static func uuidString(high: UInt64, low: UInt64) -> String {
        var h = high, l = low
        h = (h & ~0xF000) | 0x4000                      // version 4
        l = (l & ~(0xC000_0000_0000_0000)) | 0x8000_0000_0000_0000  // variant 10
        return String(unsafeUninitializedCapacity: 36) { out in
            hexPairs.withUnsafeBufferPointer { pairs in
                var n = 0
                /// Writes the bytes `first..<last` of `word` (most significant first) as hex pairs.
                func put(_ word: UInt64, _ first: Int, _ last: Int) {
                    for i in first..<last {
                        let pair = pairs[Int(truncatingIfNeeded: word >> (56 - 8 * i)) & 0xFF]
                        out[n] = UInt8(truncatingIfNeeded: pair >> 8)
                        out[n + 1] = UInt8(truncatingIfNeeded: pair)
                        n += 2
                    }
                }
                let dash = UInt8(ascii: "-")
                put(h, 0, 4); out[n] = dash; n += 1
                put(h, 4, 6); out[n] = dash; n += 1
                put(h, 6, 8); out[n] = dash; n += 1
                put(l, 0, 2); out[n] = dash; n += 1
                put(l, 2, 8)
                return n
            }
        }
    }

    /// The two lowercase hex digits of every byte value, the first in the high byte.
    private static let hexPairs: [UInt16] = (0..<256).map { byte in
        UInt16(hexDigit(UInt8(byte >> 4))) << 8 | UInt16(hexDigit(UInt8(byte & 0xF)))
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? nibble + UInt8(ascii: "0") : nibble - 10 + UInt8(ascii: "a")
    }
}
