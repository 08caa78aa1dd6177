/// The withdraw message of a cleared condition: a display or the Home Assistant blueprint
/// removes the alert it names. A distinct value: every withdrawal goes to the publisher
/// through `Pipeline.withdrawMessages(_:)` (the place to hand it to other outputs).
package struct Withdrawal: Sendable, Equatable {
    package var alertID: String
    var collapseID: String
    var sourceTopic: String
    package var route: String
    package var reason = "cleared"

    /// `{"type":"withdraw","alert_id":…,"collapse_id":…,"source_topic":…,"route":…,"reason":"cleared"}`.
    package var json: [UInt8] {
        var w = JSONWriter(capacity: 256)
        w.beginObject()
        w.add("type", "withdraw")
        w.add("alert_id", alertID)
        w.add("collapse_id", collapseID)
        w.add("source_topic", sourceTopic)
        w.add("route", route)
        w.add("reason", reason)
        w.endObject()
        return w.bytes
    }

    /// One collapse id per condition: the route's when it renders one, otherwise
    /// `<route>-<key>` with everything but letters, digits, `.`, `_` and `-` made `-`, at
    /// most 64 bytes (a longer one keeps its start and ends in a hash of the whole).
    static func collapseID(route: String, key: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-".utf8)
        let raw = Array("\(route)-\(key)".utf8)
        let safe = raw.map { allowed.contains($0) ? $0 : UInt8(ascii: "-") }
        guard safe.count > 64 else { return String(decoding: safe, as: UTF8.self) }
        let hex = String(Partition.fnv1a32(raw), radix: 16)
        let suffix = "-" + String(repeating: "0", count: 8 - hex.count) + hex
        return String(decoding: safe.prefix(64 - suffix.utf8.count), as: UTF8.self) + suffix
    }
}
