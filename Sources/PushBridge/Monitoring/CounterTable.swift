/// Named entries in insertion order with an index, capped at `capacity` names.
///
/// Entries live in a flat array so a snapshot can copy them in one pass and the hot
/// path updates one in place; a name already present never allocates.
struct CounterTable<Entry> {
    private(set) var names: [String] = []
    var entries: [Entry] = []
    /// Name → slot, by the name's bytes (`ByteKeyIndex`: a topic is counted per message).
    private var index = ByteKeyIndex()
    /// Names added through `slot(for:make:)`: the ones that take capacity.
    private var counted = 0
    /// Most names accepted (not counting a reserved overflow slot, when the owner keeps one).
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// The slot of `name`, or `nil` when it is not present.
    func slot(of name: String) -> Int? { index.value(for: name) }

    /// The slot of `name`, adding it with `make()` when absent and below capacity; `nil` when full.
    mutating func slot(for name: String, make: () -> Entry) -> Int? {
        if let i = index.value(for: name) { return i }
        guard counted < capacity else { return nil }
        counted += 1
        return insert(name, make())
    }

    /// Adds an entry that does not count against the capacity (e.g. the "(other)" bucket).
    mutating func insertReserved(_ name: String, _ entry: Entry) -> Int {
        let i = names.count
        names.append(name)
        entries.append(entry)
        return i
    }

    /// Makes `name` an alias of slot `i` without taking capacity.
    mutating func alias(_ name: String, to i: Int) { index.set(i, for: name) }

    private mutating func insert(_ name: String, _ entry: Entry) -> Int {
        let i = names.count
        names.append(name)
        entries.append(entry)
        index.set(i, for: name)
        return i
    }

    /// Name and entry pairs, each entry copied into fresh storage.
    func copied() -> (names: [String], entries: [Entry]) {
        (names.withUnsafeBufferPointer { Array($0) }, entries.withUnsafeBufferPointer { Array($0) })
    }
}
