/// The text a template renders, collected in a caller's buffer (normally on the stack) and
/// made into one `String` at the end; text that does not fit goes on as a growing string.
struct TextPieces: ~Copyable {
    /// The stack buffer's size: a rendered title or body fits in it.
    static let capacity = 512

    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private var count = 0
    /// Everything so far, once it no longer fits in `buffer`.
    private var overflow: String?

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }

    mutating func append(_ text: String) {
        if overflow != nil {
            overflow! += text
            return
        }
        let copied = text.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            guard utf8.count <= buffer.count - count else { return false }
            if let source = utf8.baseAddress, let target = buffer.baseAddress {
                (target + count).initialize(from: source, count: utf8.count)
            }
            count += utf8.count
            return true
        }
        if copied != true {
            overflow = String(decoding: UnsafeBufferPointer(rebasing: buffer[..<count]), as: UTF8.self) + text
        }
    }

    /// The text (the buffer's bytes are whole strings' UTF-8, so nothing is repaired).
    consuming func text() -> String {
        overflow ?? String(copyingUTF8: UnsafeBufferPointer(rebasing: buffer[..<count]))
    }
}
