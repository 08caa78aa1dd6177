/// Bytes written into a caller's buffer (normally on the stack), moved to the heap only when
/// they outgrow it: each write is a compare and a store or a copy, without an array's
/// uniqueness check per append. `[UInt8].append(_:)` hands one over.
struct ByteBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// The bytes written so far.
    private(set) var count = 0
    /// `base` was allocated here (and is freed here).
    private var onHeap = false

    /// The stack room `[UInt8].append(_:)` starts with.
    static let stackCapacity = 1024

    /// Writes into `buffer` from its start, then into the heap when it is full.
    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        if let start = buffer.baseAddress, buffer.count > 0 {
            base = start
            capacity = buffer.count
        } else {
            base = UnsafeMutablePointer.allocate(capacity: 64)
            capacity = 64
            onHeap = true
        }
    }

    deinit { if onHeap { base.deallocate() } }

    /// What was written.
    var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(by: 1) }
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        if bytes.count > capacity - count { grow(by: bytes.count) }
        (base + count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Appends a constant's bytes.
    @inline(__always)
    mutating func append(_ s: StaticString) {
        append(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// Appends a string's UTF-8.
    mutating func append(utf8 s: String) {
        if s.utf8.withContiguousStorageIfAvailable({ append($0) }) == nil {
            Array(s.utf8).withUnsafeBufferPointer { append($0) }
        }
    }

    /// Room for `more` bytes past `count`, at least twice the room there was.
    @inline(never)
    private mutating func grow(by more: Int) {
        let newCapacity = max(2 * capacity, count + more)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        if onHeap { base.deallocate() }
        base = newBase
        capacity = newCapacity
        onHeap = true
    }
}

extension [UInt8] {
    /// Appends what `body` writes (first into stack memory, copied here once).
    mutating func append(_ body: (inout ByteBuffer) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ByteBuffer.stackCapacity) { stack in
            var w = ByteBuffer(stack)
            body(&w)
            append(contentsOf: w.written)
        }
    }
}
