/// A minimal streaming JSON writer that keeps keys in the order they are written.
///
/// The wire formats (display and dead-letter messages, the stats document) list their
/// keys in the documented order (docs/formats.md) for people reading them with `mosquitto_sub`; `JSONValue`
/// serialization sorts keys, so this writer exists for that. Strings are escaped by the
/// same code as `JSONValue`'s serializer.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []

    /// An empty writer with room for `capacity` bytes.
    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }
    /// Whether a member has been written in each open container: bit `i` for the container
    /// at depth `i` (no array to allocate per document), beyond 64 levels `deepHasMember`.
    private var hasMemberBits: UInt64 = 0
    private var depth = 0
    private var deepHasMember: [Bool] = []
    private var afterKey = false

    mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        if depth < 64 { hasMemberBits &= ~(1 << UInt64(depth)) } else { deepHasMember.append(false) }
        depth += 1
    }

    mutating func endObject() {
        depth -= 1
        if depth >= 64 { deepHasMember.removeLast() }
        bytes.append(UInt8(ascii: "}"))
    }

    /// Writes an object key; the next value call writes its value.
    mutating func key(_ k: String) {
        separate()
        appendString(k)
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    mutating func string(_ s: String) { separate(); appendString(s) }

    mutating func number(_ n: Int) { separate(); bytes += Array(String(n).utf8) }

    /// A finite number rounded to 3 decimals (non-finite values are written as 0).
    mutating func number(_ d: Double) {
        separate()
        let rounded = d.isFinite ? (d * 1000).rounded() / 1000 : 0
        if rounded == rounded.rounded(), abs(rounded) < 1e15 {
            bytes += Array(String(Int64(rounded)).utf8)
        } else {
            bytes += Array(String(rounded).utf8)
        }
    }

    mutating func bool(_ b: Bool) { separate(); bytes += Array((b ? "true" : "false").utf8) }

    mutating func null() { separate(); bytes += Array("null".utf8) }

    /// Writes the comma before a value or key when needed.
    private mutating func separate() {
        if afterKey { afterKey = false; return }
        guard depth > 0 else { return }
        let i = depth - 1
        if i < 64 {
            if hasMemberBits & (1 << UInt64(i)) != 0 { bytes.append(UInt8(ascii: ",")) }
            hasMemberBits |= 1 << UInt64(i)
        } else {
            if deepHasMember[i - 64] { bytes.append(UInt8(ascii: ",")) }
            deepHasMember[i - 64] = true
        }
    }

    private mutating func appendString(_ s: String) { JSONValue.writeString(s, into: &bytes) }

    /// Writes any JSON value (nested objects with sorted keys).
    mutating func value(_ v: JSONValue) { separate(); v.write(into: &bytes) }

    /// Writes the member `k: v`.
    mutating func add(_ k: String, _ v: JSONValue) { key(k); value(v) }

    /// Writes the member `k: Timestamp.iso8601(seconds)` (without making the string).
    mutating func add(_ k: String, timestamp seconds: Double) {
        key(k)
        separate()
        Timestamp.appendQuotedISO8601(seconds, to: &bytes)
    }

    /// Writes the member `k: s`, or nothing when `s` is `nil` (absent keys are left out).
    mutating func add(_ k: String, _ s: String?) {
        guard let s else { return }
        key(k)
        string(s)
    }
}
