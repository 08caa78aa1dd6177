/// Topic partitioning (`partition:`, docs/operations.md, "Scaling out"): which topics this replica handles.
///
/// Replica `index` of `count` handles a topic when the topic's FNV-1a hash modulo `count`
/// is `index`. The hash is the 32-bit FNV-1a of the topic's UTF-8 bytes: start from the
/// offset basis 2166136261 (0x811C9DC5); for each byte, XOR it in, then multiply by the
/// prime 16777619 (0x01000193) modulo 2³². The hash does not depend on the process, the
/// machine or the Swift version (unlike `Hasher`), so every replica agrees on every topic,
/// and a tool in another language can compute who owns a topic:
///
/// ```python
/// h = 2166136261
/// for b in topic.encode(): h = ((h ^ b) * 16777619) & 0xFFFFFFFF
/// owner = h % count
/// ```
///
/// Pure value type; the bridge asks `handles(topic:)` for each message before anything else.
package struct Partition: Sendable, Equatable, CustomStringConvertible {
    /// This replica's partition, from 0 to `count` - 1.
    package let index: Int
    /// How many replicas share the topics.
    package let count: Int

    /// The FNV-1a 32-bit offset basis.
    static let offsetBasis: UInt32 = 2_166_136_261
    /// The FNV 32-bit prime.
    static let prime: UInt32 = 16_777_619

    /// Partition `index` of `count`; `nil` unless `1 <= count <= PartitionConfig.maxCount`
    /// and `0 <= index < count`.
    package init?(index: Int, count: Int) {
        guard (1...PartitionConfig.maxCount).contains(count), index >= 0, index < count else { return nil }
        self.index = index
        self.count = count
    }

    /// The partition `partition:` of `bridge.yml` describes (`nil` when it is out of range).
    package init?(_ config: PartitionConfig) {
        self.init(index: config.index, count: config.count)
    }

    /// The 32-bit FNV-1a hash of `bytes`.
    static func fnv1a32<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt32 {
        var hash = offsetBasis
        for byte in bytes {
            hash ^= UInt32(byte)
            hash &*= prime
        }
        return hash
    }

    /// The 32-bit FNV-1a hash of the topic's UTF-8 bytes.
    static func hash(topic: String) -> UInt32 {
        var topic = topic
        return topic.withUTF8 { fnv1a32($0) }
    }

    /// The partition that owns `topic` among `count`.
    package static func owner(of topic: String, count: Int) -> Int {
        Int(hash(topic: topic) % UInt32(count))
    }

    /// `true` when this replica handles `topic`.
    package func handles(topic: String) -> Bool {
        count == 1 || Self.owner(of: topic, count: count) == index
    }

    /// `1 of 3` style: `index=1 count=3`.
    package var description: String { "index=\(index) count=\(count)" }
}
