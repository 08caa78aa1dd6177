import Testing
@testable import PushBridge

/// `ByteKeyIndex`: string → integer by the string's bytes, against a dictionary as the model.
@Suite struct ByteKeyIndexTests {
    @Test("empty, then added, replaced and forgotten")
    func basics() {
        var index = ByteKeyIndex()
        #expect(index.value(for: "a") == nil && index.count == 0)
        index.removeAll()   // nothing held: nothing to do
        index.set(1, for: "a")
        index.set(2, for: "")
        #expect(index.value(for: "a") == 1 && index.value(for: "") == 2 && index.value(for: "b") == nil)
        index.set(3, for: "a")
        #expect(index.value(for: "a") == 3 && index.count == 2, "a key held already changes its value")
        index.removeAll()
        #expect(index.count == 0 && index.value(for: "a") == nil && index.value(for: "") == nil)
        index.set(4, for: "a")
        #expect(index.value(for: "a") == 4 && index.count == 1)
    }

    @Test("keys are bytes: canonically equivalent spellings are two keys")
    func bytes() {
        var index = ByteKeyIndex()
        index.set(1, for: "caf\u{E9}")
        index.set(2, for: "cafe\u{301}")
        #expect(index.value(for: "caf\u{E9}") == 1 && index.value(for: "cafe\u{301}") == 2 && index.count == 2)
        // The same bytes in another string value find the key.
        let long = String(repeating: "zigbee2mqtt/kitchen/", count: 3)
        index.set(5, for: long)
        #expect(index.value(for: Substring(long).description) == 5)
    }

    @Test("through many growths it agrees with a dictionary", arguments: [1, 15, 16, 17, 1_000, 5_000])
    func agreesWithADictionary(keys: Int) {
        var index = ByteKeyIndex(), model: [[UInt8]: Int] = [:]
        var rng = SystemRandomNumberGenerator()
        for i in 0..<keys {
            // Topics of varied length, some sharing long prefixes, a few repeated.
            let key = i % 7 == 6 ? "t/\(i / 2)" : "home/\(UInt32.random(in: 0...999, using: &rng))/sensor-\(i)"
            index.set(i, for: key)
            model[Array(key.utf8)] = i
        }
        #expect(index.count == model.count)
        for (bytes, value) in model {
            #expect(index.value(for: String(decoding: bytes, as: UTF8.self)) == value)
        }
        #expect(index.value(for: "home/none") == nil)
    }
}
