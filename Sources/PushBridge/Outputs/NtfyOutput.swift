import Foundation
import Synchronization

/// ntfy (its HTTP publish API, https://docs.ntfy.sh/publish/): an alert is a `POST` to the
/// topic URL with the body as the message and the fields as headers; a withdraw deletes the
/// message with that sequence id where the server supports it.
///
/// Sequence ids (`X-Sequence-ID`, the collapse id) replace an older message with a newer one
/// from ntfy 2.16 on; older servers (Debian's 2.11) ignore the header and keep both. Which one
/// runs is learned from the first answer: a server that knows sequence ids echoes
/// `"sequence_id"` in the published message's JSON. A withdraw is then `DELETE
/// <topic URL>/<sequence id>`; on a server without them it is skipped (nothing to delete).
final class NtfyOutput: OutputKind {
    let kindName = "ntfy"
    let config: NtfyConfig
    /// `nil` until an answer told; then whether the server keeps sequence ids.
    let sequenceSupport = Mutex<Bool?>(nil)

    init(config: NtfyConfig) { self.config = config }

    /// ntfy's priorities (1 min … 5 max) for Apple's interruption levels.
    static func priority(for level: String?) -> Int {
        switch level {
        case "passive": return 2
        case "time-sensitive": return 4
        case "critical": return 5
        default: return 3
        }
    }

    /// A collapse id ntfy accepts as a sequence id (its rule: 1–64 of `A-Za-z0-9_-`).
    static func sequenceID(_ collapseID: String?) -> String? {
        guard let id = collapseID, !id.isEmpty, id.utf8.count <= 64,
              id.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F })
        else { return nil }
        return id
    }

    /// A header value as ntfy reads it: ASCII as is, anything else as an RFC 2047
    /// encoded word (`=?UTF-8?B?…?=`), which ntfy decodes.
    static func headerValue(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        if flat.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return flat }
        return "=?UTF-8?B?" + Data(flat.utf8).base64EncodedString() + "?="
    }

    private var authorization: [(name: String, value: String)] {
        config.token.map { [("Authorization", "Bearer \($0)")] } ?? []
    }

    func request(for message: OutputMessage, target: String) -> ServiceRequest? {
        if message.isWithdraw {
            guard let seq = Self.sequenceID(message.collapseID), sequenceSupport.withLock({ $0 }) != false else { return nil }
            return ServiceRequest(method: "DELETE", url: Self.join(config.url, seq), headers: authorization)
        }
        var headers = authorization
        if !message.title.isEmpty { headers.append(("X-Title", Self.headerValue(message.title))) }
        headers.append(("X-Priority", String(Self.priority(for: message.interruptionLevel))))
        if let category = message.category, !category.isEmpty { headers.append(("X-Tags", Self.headerValue(category))) }
        if let click = message.clickURL { headers.append(("X-Click", click)) }
        if let seq = Self.sequenceID(message.collapseID) { headers.append(("X-Sequence-ID", seq)) }
        headers.append(("Content-Type", "text/plain; charset=utf-8"))
        return ServiceRequest(method: "POST", url: config.url, headers: headers, body: Array(message.body.utf8))
    }

    func verdict(for response: ServiceResponse, message: OutputMessage, target: String) -> DeliveryVerdict {
        let now = Date().timeIntervalSince1970
        if message.isWithdraw {
            // A server without sequence ids has no such path: nothing was there to delete.
            if [400, 404, 405].contains(response.status) {
                sequenceSupport.withLock { $0 = false }
                return .skipped("ntfy \(response.status): this server cannot delete by sequence id")
            }
            return Self.standardVerdict(response, now: now)
        }
        let verdict = Self.standardVerdict(response, now: now)
        if verdict == .delivered, Self.sequenceID(message.collapseID) != nil,
           case .object(let o)? = try? JSONValue.parse(response.body) {
            let knows = o["sequence_id"] != nil
            sequenceSupport.withLock { $0 = knows }
        }
        return verdict
    }

    /// `base` + `/` + `path` with one slash between them.
    static func join(_ base: String, _ path: String) -> String {
        (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/" + path
    }
}
