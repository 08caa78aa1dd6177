import Testing
@testable import PushBridge

/// `JSONObject` (a member list, a key table only past `indexThreshold`) behaves like the
/// dictionary it replaces.
@Suite("JSON object members")
struct JSONObjectTests {
    /// Random sets, replacements and removals, checked against a dictionary after each step,
    /// on both sides of the key-table threshold.
    @Test("against a dictionary", arguments: [1, 2, 3, 4])
    func againstDictionary(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        let keySpace = seed % 2 == 0 ? 10 : 60  // below and above the threshold
        var object = JSONObject()
        var model: [String: JSONValue] = [:]
        for step in 0..<2_000 {
            let key = "k\(Int.random(in: 0..<keySpace, using: &rng))"
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<6:
                object[key] = .int(Int64(step))
                model[key] = .int(Int64(step))
            case 6, 7:
                object[key] = nil
                model[key] = nil
            case 8:
                #expect(object.removeValue(forKey: key) == model.removeValue(forKey: key))
            default:
                #expect(object[key, default: .null] == model[key, default: .null])
            }
            #expect(object.count == model.count)
            #expect(object[key] == model[key])
            if step % 97 == 0 {
                for (k, v) in model { #expect(object[k] == v) }
                #expect(Set(object.keys) == Set(model.keys))
                #expect(object == JSONObject(model))
                #expect(object.hashValue == JSONObject(model).hashValue)
            }
        }
    }

    @Test("equality and hashing ignore the order; members keep the order keys came in")
    func order() {
        let ab: JSONObject = ["a": .int(1), "b": .string("x")]
        let ba: JSONObject = ["b": .string("x"), "a": .int(1)]
        #expect(ab == ba)
        #expect(ab.hashValue == ba.hashValue)
        #expect(JSONValue.object(ab).hashValue == JSONValue.object(ba).hashValue)
        #expect(ab.keys == ["a", "b"] && ba.keys == ["b", "a"])
        #expect(ab != ["a": .int(1)])
        #expect(ab != ["a": .int(1), "b": .string("y")])
        #expect(ab != ["a": .int(1), "c": .string("x")])
        var replaced = ab
        replaced["a"] = .null
        #expect(replaced.keys == ["a", "b"] && replaced["a"] == .null)
        #expect(JSONObject() == [:])
        #expect(["k": .int(1), "k": .int(2)] as JSONObject == ["k": .int(2)])
        #expect(ab.mapValues { _ in .bool(true) } == ["a": .bool(true), "b": .bool(true)])
    }

    @Test("serialized text does not depend on the order members were added")
    func serialization() {
        var forward = JSONObject(), backward = JSONObject()
        for i in 0..<40 { forward["k\(i)"] = .int(Int64(i)) }
        for i in (0..<40).reversed() { backward["k\(i)"] = .int(Int64(i)) }
        #expect(JSONValue.object(forward).jsonText == JSONValue.object(backward).jsonText)
        let small: JSONObject = ["b": .int(2), "a": .int(1), "é": .null, "A": .bool(false)]
        #expect(JSONValue.object(small).jsonText == #"{"A":false,"a":1,"b":2,"é":null}"#)
    }
}
