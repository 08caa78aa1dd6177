/// A bounded FIFO of encoded Server-Sent-Events frames for one reader.
///
/// Bounded twice: at most `capacity` frames and at most `maxBytes` bytes. Pushing onto a
/// full ring forgets the oldest frames first (a dashboard wants what is happening now) and
/// reports how many it forgot. Reading copies bytes out in order; a frame that does not fit
/// the caller's buffer is continued on the next read, so frames are never cut.
struct EventRing: Sendable {
    let capacity: Int
    let maxBytes: Int
    private var slots: [[UInt8]]
    private var head = 0
    /// Frames held.
    private(set) var count = 0
    /// Bytes held (frames not yet fully read, the partly read one whole).
    private(set) var bytes = 0
    /// How much of the head frame was already read.
    private var headOffset = 0

    init(capacity: Int, maxBytes: Int) {
        precondition(capacity > 0 && maxBytes > 0)
        self.capacity = capacity
        self.maxBytes = maxBytes
        slots = Array(repeating: [], count: capacity)
    }

    var isEmpty: Bool { count == 0 }

    /// Appends `frame`; returns the number of frames forgotten to make room (a frame larger
    /// than `maxBytes` is itself forgotten and counts as 1). A partly read frame is never
    /// forgotten (its first bytes are already on the wire).
    @discardableResult
    mutating func push(_ frame: [UInt8]) -> Int {
        guard frame.count <= maxBytes else { return 1 }
        var forgotten = 0
        while count > 0 && (count == capacity || bytes + frame.count > maxBytes) {
            if headOffset > 0 {
                // The head is on the wire already: forget the newest instead, or this one.
                if count == 1 { return forgotten + 1 }
                let last = (head + count - 1) % capacity
                bytes -= slots[last].count
                slots[last] = []
                count -= 1
            } else {
                bytes -= slots[head].count
                slots[head] = []
                head = (head + 1) % capacity
                count -= 1
            }
            forgotten += 1
        }
        if count == capacity || bytes + frame.count > maxBytes { return forgotten + 1 }
        slots[(head + count) % capacity] = frame
        count += 1
        bytes += frame.count
        return forgotten
    }

    /// Copies up to `max` bytes of the oldest frames into `buffer`; returns the bytes copied.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var written = 0
        while count > 0 && written < buffer.count {
            let frame = slots[head]
            let n = min(frame.count - headOffset, buffer.count - written)
            frame.withUnsafeBytes { src in
                buffer.baseAddress!.advanced(by: written).copyMemory(from: src.baseAddress!.advanced(by: headOffset),
                                                                     byteCount: n)
            }
            written += n
            headOffset += n
            if headOffset == frame.count {
                bytes -= frame.count
                slots[head] = []
                head = (head + 1) % capacity
                count -= 1
                headOffset = 0
            }
        }
        return written
    }
}
