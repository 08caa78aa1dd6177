/// The members of a JSON object: unique keys, each with its value.
///
/// Kept as a list in the order keys were first added, so building one hashes nothing:
/// lookups compare keys in turn while the object is small, and use a key → position
/// table built once it grows past `indexThreshold` members. Equality and hashing ignore
/// the order (two objects with the same members are equal), like a dictionary's.
public struct JSONObject: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    /// A member: its key and value.
    public typealias Element = (key: String, value: JSONValue)
    /// A member's position, in the order keys were first added.
    public typealias Index = Int

    /// A member as stored: a struct, not the `Element` tuple, because freeing an array of
    /// tuples goes through the runtime's generic tuple destroy, one call per member (~80
    /// instructions each), where a struct's array is destroyed by its compiled witness.
    struct Member: Sendable {
        var key: String
        var value: JSONValue
    }

    /// Members in the order their keys were first added.
    private var members: ContiguousArray<Member>
    /// Key → position in `members`, kept once there are more than `indexThreshold` members.
    private var positions: [String: Int]?

    /// Members up to which lookups compare keys in turn (no table, no hashing).
    static let indexThreshold = 16

    /// An empty object.
    public init() {
        members = []
        positions = nil
    }

    /// An object with `dictionary`'s members.
    public init(_ dictionary: [String: JSONValue]) {
        self.init()
        reserveCapacity(dictionary.count)
        for (key, value) in dictionary { self[key] = value }
    }

    /// An object from key-value pairs; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init()
        reserveCapacity(elements.count)
        for (key, value) in elements { self[key] = value }
    }

    /// Reserves room for `count` members.
    mutating func reserveCapacity(_ count: Int) {
        members.reserveCapacity(count)
    }

    /// The first member's position (0).
    public var startIndex: Int { 0 }
    /// One past the last member's position (the number of members).
    public var endIndex: Int { members.count }
    /// The member at `position`.
    public subscript(position: Int) -> Element {
        let member = members[position]
        return (member.key, member.value)
    }

    /// The keys, in the order they were first added.
    public var keys: [String] { members.map(\.key) }
    /// The values, in the order their keys were first added.
    public var values: [JSONValue] { members.map(\.value) }

    /// Calls `body` with the members in place, in the order keys were first added.
    func withMembers<R>(_ body: (UnsafeBufferPointer<Member>) throws -> R) rethrows -> R {
        try members.withUnsafeBufferPointer(body)
    }

    /// The position of `key`'s member, or `nil`.
    package func index(forKey key: String) -> Int? {
        if let positions { return positions[key] }
        return members.withUnsafeBufferPointer { buffer in
            // The byte counts first: most members that are not `key` differ in length, and
            // comparing two counts is cheaper than `==` on two different strings.
            let count = key.utf8.count
            for i in buffer.indices where buffer[i].key.utf8.count == count && buffer[i].key == key { return i }
            return nil
        }
    }

    /// The value for `key`; setting `nil` removes the member. Setting a new key adds it
    /// at the end; setting an existing one replaces its value in place.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let i = index(forKey: key) else { return nil }
            return members[i].value
        }
        set {
            if let i = index(forKey: key) {
                if let newValue {
                    members[i].value = newValue
                } else {
                    removeMember(at: i)
                }
            } else if let newValue {
                members.append(Member(key: key, value: newValue))
                if positions != nil {
                    positions![key] = members.count - 1
                } else if members.count > Self.indexThreshold {
                    buildPositions()
                }
            }
        }
    }

    /// The value for `key`, or `defaultValue` when it has none.
    public subscript(key: String, default defaultValue: @autoclosure () -> JSONValue) -> JSONValue {
        self[key] ?? defaultValue()
    }

    /// Removes `key`'s member; returns its value.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let i = index(forKey: key) else { return nil }
        let value = members[i].value
        removeMember(at: i)
        return value
    }

    /// The same keys with `transform` applied to each value.
    func mapValues(_ transform: (JSONValue) throws -> JSONValue) rethrows -> JSONObject {
        var result = self
        for i in result.members.indices { result.members[i].value = try transform(result.members[i].value) }
        return result
    }

    private mutating func removeMember(at i: Int) {
        members.remove(at: i)
        if positions != nil { buildPositions() }
    }

    private mutating func buildPositions() {
        var table = [String: Int](minimumCapacity: members.count)
        for (i, member) in members.enumerated() { table[member.key] = i }
        positions = table
    }

    /// The same members in any order.
    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        guard a.members.count == b.members.count else { return false }
        for member in a.members {
            guard let other = b[member.key], other == member.value else { return false }
        }
        return true
    }

    /// Independent of the order (each member hashed alone, the results combined commutatively).
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for member in members {
            var h = Hasher()
            h.combine(member.key)
            h.combine(member.value)
            combined ^= h.finalize()
        }
        hasher.combine(members.count)
        hasher.combine(combined)
    }
}

extension JSONObject: CustomStringConvertible {
    /// Dictionary-like text, e.g. `["a": PushBridge.JSONValue.int(1)]`.
    public var description: String {
        if members.isEmpty { return "[:]" }
        return "[" + members.map { "\(String(reflecting: $0.key)): \(String(reflecting: $0.value))" }
            .joined(separator: ", ") + "]"
    }
}
