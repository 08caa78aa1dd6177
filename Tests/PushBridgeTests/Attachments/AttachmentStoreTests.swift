import Foundation
import Synchronization
import Testing
@testable import PushBridge

/// The store's bounds (`keep`, `total_bytes`), its index across a restart, and what it
/// never serves; the newest-bytes cache of the `from_topic` sources.
@Suite struct AttachmentStoreTests {
    final class Clock: Sendable {
        let now = Mutex<Double>(1_000_000)
        func advance(_ s: Double) { now.withLock { $0 += s } }
        var read: @Sendable () -> Double { { [self] in now.withLock { $0 } } }
    }

    static func folder() throws -> String {
        let dir = NSTemporaryDirectory() + "pushbridge-store-\(UUID().uuidString)"
        return dir
    }

    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 7, count: 96)

    @Test func tokensAre128RandomBits() {
        let tokens = (0..<200).map { _ in AttachmentStore.newToken() }
        #expect(Set(tokens).count == 200)
        #expect(tokens.allSatisfy(AttachmentStore.isToken))
        #expect(!AttachmentStore.isToken("../../etc/passwd") && !AttachmentStore.isToken(String(repeating: "A", count: 32)))
    }

    @Test func storesServesAndExpires() throws {
        let clock = Clock()
        let store = try AttachmentStore(directory: try Self.folder(), keep: .seconds(60), totalBytes: 10_000, temporary: true,
                                        clock: clock.read)
        defer { store.close() }
        let token = AttachmentStore.newToken()
        let item = try store.put(token: token, identifier: "snapshot", media: .jpeg, bytes: Self.jpeg)
        #expect(item.name == "snapshot.jpg" && item.size == 100)
        #expect(FileManager.default.contents(atPath: item.path).map(Array.init) == Self.jpeg)
        #expect(store.lookup(token: token, name: "snapshot.jpg")?.media == .jpeg)
        #expect(store.lookup(token: token, name: "snapshot.png") == nil)
        #expect(store.lookup(token: AttachmentStore.newToken(), name: "snapshot.jpg") == nil)
        #expect(store.lookup(token: token, name: "../snapshot.jpg") == nil)
        clock.advance(61)
        #expect(store.lookup(token: token, name: "snapshot.jpg") == nil)
        store.sweep()
        #expect(!FileManager.default.fileExists(atPath: item.path))
        #expect(store.counts.expired == 1 && store.counts.bytes == 0)
    }

    @Test func theOldestAreEvictedFirstAndTheBoundHolds() throws {
        let store = try AttachmentStore(directory: try Self.folder(), keep: .seconds(3600), totalBytes: 350, temporary: true)
        defer { store.close() }
        var items: [AttachmentStore.Item] = []
        for _ in 0..<5 {
            items.append(try store.put(token: AttachmentStore.newToken(), identifier: "a", media: .jpeg, bytes: Self.jpeg))
            #expect(store.counts.bytes <= 350)
        }
        #expect(store.counts.files == 3 && store.counts.evicted == 2)
        #expect(store.lookup(token: items[0].token, name: "a.jpg") == nil && !FileManager.default.fileExists(atPath: items[0].path))
        #expect(store.lookup(token: items[4].token, name: "a.jpg") != nil)
    }

    @Test func aRestartKeepsWhatWasStored() throws {
        let dir = try Self.folder()
        let first = try AttachmentStore(directory: dir, keep: .seconds(3600), totalBytes: 10_000, temporary: false)
        let token = AttachmentStore.newToken()
        _ = try first.put(token: token, identifier: "clip", media: .mp4, bytes: [0, 0, 0, 0x18] + Array("ftypmp42".utf8) + [0, 0, 0, 0])
        // Foreign files in the folder are never indexed or served.
        try "x".write(toFile: dir + "/" + token + "/notes.txt", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: dir + "/not-a-token", withIntermediateDirectories: true)
        try "x".write(toFile: dir + "/not-a-token/a.jpg", atomically: true, encoding: .utf8)
        let second = try AttachmentStore(directory: dir, keep: .seconds(3600), totalBytes: 10_000, temporary: true)
        defer { second.close() }
        #expect(second.lookup(token: token, name: "clip.mp4")?.size == 16)
        #expect(second.lookup(token: token, name: "notes.txt") == nil)
        #expect(second.counts.files == 1)
    }

    @Test func theNewestBytesPerTopicAndTheWaiters() throws {
        let cache = TopicBytes(largest: 1000, capacity: 2500)
        let got = Mutex<[Int]>([])
        cache.store(topic: "cam/a", bytes: Self.jpeg, at: 100)
        let (fresh, none) = cache.take(topic: "cam/a", since: 50) { _ in Issue.record("called") }
        #expect(fresh?.bytes.count == 100 && none == nil)
        // Older than max_age: waits for the next bytes.
        let (stale, waiter) = cache.take(topic: "cam/a", since: 150) { e in got.withLock { $0.append(e.bytes.count) } }
        #expect(stale == nil && waiter != nil && cache.waiting == 1)
        cache.store(topic: "cam/a", bytes: [UInt8](repeating: 1, count: 10), at: 200)
        #expect(got.withLock { $0 } == [10] && cache.waiting == 0)
        // A cancelled waiter is never called.
        let (_, w2) = cache.take(topic: "cam/b", since: 0) { _ in Issue.record("cancelled waiter called") }
        cache.cancel(topic: "cam/b", waiter: w2!)
        cache.store(topic: "cam/b", bytes: [UInt8](repeating: 1, count: 10), at: 300)
        // Too large: only the size is kept; the capacity drops the oldest topics.
        cache.store(topic: "cam/c", bytes: [UInt8](repeating: 1, count: 5000), at: 400)
        #expect(cache.take(topic: "cam/c", since: 0) { _ in }.entry?.droppedSize == 5000)
        for i in 0..<5 { cache.store(topic: "t/\(i)", bytes: [UInt8](repeating: 2, count: 900), at: Double(500 + i)) }
        #expect(cache.heldBytes <= 2500)
        #expect(cache.take(topic: "t/4", since: 0) { _ in }.entry != nil)
    }
}
