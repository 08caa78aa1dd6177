import Testing
@testable import PushBridge

/// The FNV-1a 32-bit hash and the partition decision (docs/operations.md, "Scaling out").
@Suite struct PartitionTests {
    /// Published FNV-1a 32-bit test vectors (Fowler/Noll/Vo reference test suite).
    @Test(arguments: [
        ("", 0x811C_9DC5 as UInt32), ("a", 0xE40C_292C), ("b", 0xE70C_2DE5), ("c", 0xE60C_2C52),
        ("foo", 0xA9F3_7ED7), ("foob", 0x3F50_76EF), ("fooba", 0x39AA_A18A), ("foobar", 0xBF9C_F968),
    ])
    func knownVectors(text: String, hash: UInt32) {
        #expect(Partition.hash(topic: text) == hash, "\(text)")
        #expect(Partition.fnv1a32(Array(text.utf8)) == hash)
    }

    @Test func theConstantsAreFNV1a32s() {
        #expect(Partition.offsetBasis == 2_166_136_261)
        #expect(Partition.prime == 16_777_619)
    }

    @Test func hashesTheUTF8BytesOfTheTopic() {
        // Computed with the Python snippet in Partition's doc comment.
        #expect(Partition.hash(topic: "home/front/doorbell") == 0xE116_8526)
        #expect(Partition.hash(topic: "hé/温度") == 0xC717_BB08)
        // A topic bridged from an NSString (non-native storage) hashes the same.
        let bridged = String("home/front/doorbell".utf8CString.dropLast().map { Character(Unicode.Scalar(UInt8($0))) })
        #expect(Partition.hash(topic: bridged) == 0xE116_8526)
    }

    @Test func exactlyOneReplicaHandlesEachTopic() throws {
        for count in [1, 2, 3, 7] {
            let replicas = try (0..<count).map { try #require(Partition(index: $0, count: count)) }
            for n in 0..<500 {
                let topic = "dev/\(n)/state"
                let owners = replicas.filter { $0.handles(topic: topic) }
                #expect(owners.count == 1, "\(topic) among \(count)")
                #expect(owners.first?.index == Partition.owner(of: topic, count: count))
            }
        }
    }

    @Test func topicsSpreadOverTheReplicas() {
        var perOwner = [0, 0, 0]
        for n in 0..<3000 { perOwner[Partition.owner(of: "sensors/room-\(n)/telemetry", count: 3)] += 1 }
        #expect(perOwner.allSatisfy { $0 > 800 }, "\(perOwner)")
    }

    @Test func ownerIsTheHashModuloCount() {
        #expect(Partition.owner(of: "home/front/doorbell", count: 3) == Int(0xE116_8526 as UInt32 % 3))
        #expect(Partition(index: 1, count: 3)!.handles(topic: "home/front/doorbell"))
        #expect(!Partition(index: 0, count: 3)!.handles(topic: "home/front/doorbell"))
    }

    @Test(arguments: [(0, 0), (-1, 3), (3, 3), (0, PartitionConfig.maxCount + 1)])
    func outOfRangeIsNil(index: Int, count: Int) {
        #expect(Partition(index: index, count: count) == nil)
    }

    @Test func oneOfOneHandlesEverything() {
        let all = Partition(index: 0, count: 1)!
        #expect(all.handles(topic: "") && all.handles(topic: "a/b/c"))
        #expect(Partition(PartitionConfig(index: 2, count: 5))?.description == "index=2 count=5")
    }
}
