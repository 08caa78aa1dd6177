/// A bounded FIFO of Server-Sent-Events frames for one reader.
///
/// A frame is bytes, or a decision record encoded only when the reader gets to it (on the
/// HTTP server's thread, not on the thread that decided the message); its size counts as
/// an estimate until then.
///
/// Bounded twice: at most `capacity` frames and at most `maxBytes` bytes. Pushing onto a
/// full ring forgets the oldest frames first (a dashboard wants what is happening now) and
/// reports how many it forgot. Reading copies bytes out in order; a frame that does not fit
/// the caller's buffer is continued on the next read, so frames are never cut.
struct EventRing: Sendable {
    let capacity: Int
    let maxBytes: Int
    /// One frame: ready bytes, or a decision still to encode.
    enum Frame: Sendable {
        case bytes([UInt8])
        case decision(DecisionRecord)

        /// Bytes for `.bytes`, an estimate for a decision (its strings plus the JSON around them).
        var size: Int {
            switch self {
            case .bytes(let b): b.count
            case .decision(let r):
                r.topic.utf8.count + r.id.utf8.count + (r.route?.utf8.count ?? 0) + r.rule.utf8.count
                    + (r.decidedBy?.utf8.count ?? 0) + 150 + r.attachments.count * 250
            }
        }
    }
    private var slots: [Frame]
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
        slots = Array(repeating: .bytes([]), count: capacity)
    }

    var isEmpty: Bool { count == 0 }

    /// Appends `frame`; returns the number of frames forgotten to make room (a frame larger
    /// than `maxBytes` is itself forgotten and counts as 1). A partly read frame is never
    /// forgotten (its first bytes are already on the wire).
    @discardableResult
    mutating func push(_ frame: [UInt8]) -> Int { push(frame: .bytes(frame)) }

    /// Appends a decision to encode when it is read; returns the frames forgotten, as `push`.
    @discardableResult
    mutating func push(decision: DecisionRecord) -> Int { push(frame: .decision(decision)) }

    private mutating func push(frame: Frame) -> Int {
        let size = frame.size
        guard size <= maxBytes else { return 1 }
        var forgotten = 0
        while count > 0 && (count == capacity || bytes + size > maxBytes) {
            if headOffset > 0 {
                // The head is on the wire already: forget the newest instead, or this one.
                if count == 1 { return forgotten + 1 }
                let last = (head + count - 1) % capacity
                bytes -= slots[last].size
                slots[last] = .bytes([])
                count -= 1
            } else {
                bytes -= slots[head].size
                slots[head] = .bytes([])
                head = (head + 1) % capacity
                count -= 1
            }
            forgotten += 1
        }
        if count == capacity || bytes + size > maxBytes { return forgotten + 1 }
        slots[(head + count) % capacity] = frame
        count += 1
        bytes += size
        return forgotten
    }

    /// Copies up to `max` bytes of the oldest frames into `buffer`; returns the bytes copied.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var written = 0
        while count > 0 && written < buffer.count {
            if case .decision(let record) = slots[head] {
                let encoded = DecisionFeed.frame(event: "decision", data: record.json())
                bytes += encoded.count - slots[head].size
                slots[head] = .bytes(encoded)
            }
            guard case .bytes(let frame) = slots[head] else { break }
            let n = min(frame.count - headOffset, buffer.count - written)
            frame.withUnsafeBytes { src in
                buffer.baseAddress!.advanced(by: written).copyMemory(from: src.baseAddress!.advanced(by: headOffset),
                                                                     byteCount: n)
            }
            written += n
            headOffset += n
            if headOffset == frame.count {
                bytes -= frame.count
                slots[head] = .bytes([])
                head = (head + 1) % capacity
                count -= 1
                headOffset = 0
            }
        }
        return written
    }
}
