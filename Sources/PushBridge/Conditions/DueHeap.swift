/// A binary min-heap of due times: the conditions' one timer is armed for its top.
///
/// An entry is `(due, id, generation)`; a condition whose schedule changed pushes a new
/// entry with a new generation, and the old one is skipped when it surfaces (lazy
/// deletion), so rescheduling is O(log n) without a search.
struct DueHeap: Sendable {
    struct Entry: Sendable {
        var due: Double
        var id: String
        var generation: UInt64
    }

    private(set) var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }
    /// The earliest entry (possibly stale).
    var top: Entry? { entries.first }

    mutating func push(_ entry: Entry) {
        entries.append(entry)
        var i = entries.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard entries[i].due < entries[parent].due else { break }
            entries.swapAt(i, parent)
            i = parent
        }
    }

    mutating func pop() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let out = entries.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < entries.count, entries[l].due < entries[m].due { m = l }
            if r < entries.count, entries[r].due < entries[m].due { m = r }
            guard m != i else { break }
            entries.swapAt(i, m)
            i = m
        }
        return out
    }

    /// Keeps only the entries `keep` accepts (when stale ones pile up), re-heaped.
    mutating func compact(_ keep: (Entry) -> Bool) {
        let kept = entries.filter(keep)
        entries = []
        entries.reserveCapacity(kept.count)
        for e in kept { push(e) }
    }
}
