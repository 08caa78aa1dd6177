/// A value kept in one shared buffer and copied on the first write to a shared one, so a
/// large value handed along (the mapper to the stage, the decision and the publisher) costs
/// one reference count per hand-over, not a copy of every field.
package struct CopyOnWrite<Value: Sendable>: Sendable {
    /// `@unchecked Sendable`: a buffer is only written while uniquely referenced (`value`'s
    /// `_modify` copies a shared one first), so a buffer shared between threads is never mutated.
    private final class Buffer: @unchecked Sendable {
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    private var buffer: Buffer

    package init(_ value: Value) { buffer = Buffer(value) }

    /// The value; a write to a shared buffer copies it first.
    package var value: Value {
        _read { yield buffer.value }
        _modify {
            if !isKnownUniquelyReferenced(&buffer) { buffer = Buffer(buffer.value) }
            yield &buffer.value
        }
    }

    /// `true` when both share one buffer (so they hold the same value).
    package func isIdentical(to other: CopyOnWrite<Value>) -> Bool { buffer === other.buffer }
}
