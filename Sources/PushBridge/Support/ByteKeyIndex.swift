import Glibc

/// String → integer, keyed by the string's UTF-8 bytes, in an open-addressing table with a
/// seeded FNV-1a hash: the per-message lookups by topic or name (stats slots, topic aliases,
/// rule texts), at ~100–150 instructions where a `[String: Int]` took ~400 (SipHash, then
/// `String ==`).
///
/// Bytes, not `String ==`: MQTT compares topics byte for byte, and `==` joins canonically
/// equivalent spellings, which are two topics. The table is at most half full (it doubles
/// before), so a probe sequence is short, and its owners cap how many keys it holds, so even
/// keys crafted to collide cost a bounded number of probes; the seed is per process, so which
/// keys collide cannot be known in advance.
struct ByteKeyIndex {
    private static let processSeed = UInt64.random(in: .min ... .max)
    /// Slots before the first growth.
    private static let initialSlots = 16

    private struct Slot {
        /// The key's hash (never 0); 0 for an empty slot, where most probes end.
        var hash: UInt64 = 0
        /// Where the key's bytes are in `keyBytes`.
        var offset = 0, length = 0
        var value = 0
    }

    /// The process's seed, read once here (not through a lazy global per lookup).
    private let seed = ByteKeyIndex.processSeed
    /// A power of two in size once anything was added; empty before.
    private var slots: [Slot] = []
    /// Every key's bytes, one after another: comparing a stored key touches no `String`.
    private var keyBytes: [UInt8] = []
    /// Keys held.
    private(set) var count = 0

    init() {}

    /// The value stored for `key`, or `nil`.
    func value(for key: String) -> Int? {
        guard !slots.isEmpty else { return nil }
        return Self.withBytes(key) { bytes in
            let place = slot(bytes, hash(bytes))
            return place.found ? slots[place.index].value : nil
        }
    }

    /// Stores `value` for `key`, adding the key when it is new.
    mutating func set(_ value: Int, for key: String) {
        if (count + 1) * 2 > slots.count { grow() }
        Self.withBytes(key) { bytes in
            let h = hash(bytes)
            let place = slot(bytes, h)
            if !place.found {
                count += 1
                slots[place.index] = Slot(hash: h, offset: keyBytes.count, length: bytes.count, value: value)
                keyBytes.append(contentsOf: bytes)
            }
            slots[place.index].value = value
        }
    }

    /// Forgets every key; the slots are kept.
    mutating func removeAll() {
        guard count > 0 else { return }
        for i in slots.indices { slots[i] = Slot() }
        keyBytes.removeAll(keepingCapacity: true)
        count = 0
    }

    /// FNV-1a over 8-byte words (then the last bytes one by one), seeded, folded; never 0.
    private func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let prime: UInt64 = 0x0000_0100_0000_01B3
        var h: UInt64 = 0xcbf2_9ce4_8422_2325 ^ seed
        var i = 0
        if let base = UnsafeRawPointer(bytes.baseAddress) {
            while i + 8 <= bytes.count {
                h = (h ^ base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* prime
                h ^= h >> 32
                i += 8
            }
        }
        while i < bytes.count {
            h = (h ^ UInt64(bytes[i])) &* prime
            i += 1
        }
        return (h ^ (h >> 29)) | 1
    }

    /// The slot holding `bytes` (`found`), or the empty one where they would go (there is
    /// always one: the table is never more than half full).
    private func slot(_ bytes: UnsafeBufferPointer<UInt8>, _ h: UInt64) -> (index: Int, found: Bool) {
        slots.withUnsafeBufferPointer { slots in
            keyBytes.withUnsafeBufferPointer { stored in
                let mask = slots.count - 1
                var i = Int(truncatingIfNeeded: h >> 7) & mask
                while true {
                    let s = slots[i]
                    if s.hash == 0 { return (i, false) }
                    if s.hash == h, s.length == bytes.count,
                       s.length == 0 || memcmp(stored.baseAddress! + s.offset, bytes.baseAddress!, s.length) == 0 {
                        return (i, true)
                    }
                    i = (i + 1) & mask
                }
            }
        }
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(), count: max(Self.initialSlots, old.count * 2))
        let mask = slots.count - 1
        for s in old where s.hash != 0 {
            var i = Int(truncatingIfNeeded: s.hash >> 7) & mask
            while slots[i].hash != 0 { i = (i + 1) & mask }
            slots[i] = s
        }
    }

    private static func withBytes<R>(_ key: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let r = key.utf8.withContiguousStorageIfAvailable(body) { return r }
        return Array(key.utf8).withUnsafeBufferPointer(body)
    }
}
