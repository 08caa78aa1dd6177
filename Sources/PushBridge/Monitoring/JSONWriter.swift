/// A minimal streaming JSON writer that keeps keys in the order they are written.
///
/// The stats document is published in SPEC order for people reading it with
/// `mosquitto_sub`; `JSONValue` serialization sorts keys, so this writer exists for that.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    /// One entry per open container: whether a member has been written in it.
    private var hasMember: [Bool] = []
    private var afterKey = false

    mutating func beginObject() { separate(); bytes.append(UInt8(ascii: "{")); hasMember.append(false) }

    mutating func endObject() { hasMember.removeLast(); bytes.append(UInt8(ascii: "}")) }

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

    /// Writes the comma before a value or key when needed.
    private mutating func separate() {
        if afterKey { afterKey = false; return }
        guard let last = hasMember.last else { return }
        if last { bytes.append(UInt8(ascii: ",")) }
        hasMember[hasMember.count - 1] = true
    }

    private mutating func appendString(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): bytes += [0x5C, 0x22]
            case UInt8(ascii: "\\"): bytes += [0x5C, 0x5C]
            case 0x0A: bytes += [0x5C, UInt8(ascii: "n")]
            case 0x0D: bytes += [0x5C, UInt8(ascii: "r")]
            case 0x09: bytes += [0x5C, UInt8(ascii: "t")]
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes += [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0xF)]]
            default: bytes.append(b)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
