import Foundation
import Synchronization

/// ntfy (its HTTP publish API, https://docs.ntfy.sh/publish/): an alert is a `POST` to the
/// topic URL with the body as the message and the fields as headers; a withdraw deletes the
/// message with that sequence id where the server supports it.
///
/// An alert with attachments sends the first one's bytes as an upload (`PUT` with the file as
/// the request body, `Filename`, and the message in `X-Message`), read from the attachment
/// store when the delivery is sent (`NtfyUploads`). A server that refuses uploads (no
/// `attachment-cache-dir`: 400 with ntfy's code 40014; a file over its limit: 413) gets the
/// same alert again at once as a `POST` with the attachment's URL in `X-Attach` (when it has
/// one), and the refusal is remembered, so later alerts go as a link straight away.
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
    /// What the server takes as an upload, and where the files are.
    let uploads: NtfyUploads

    /// The output `name` (in logs) for `config`; `files` finds the stored attachments.
    init(name: String = "ntfy", config: NtfyConfig, files: AttachmentFiles = .none,
         logger: BridgeLogger = BridgeLogger(level: .error)) {
        self.config = config
        uploads = NtfyUploads(output: name, files: files, logger: logger)
    }

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
    /// encoded word (`=?UTF-8?B?…?=`), which ntfy decodes. Line breaks become spaces, unless
    /// `keepingLines` (the message text of an upload): then a text with any is encoded.
    static func headerValue(_ text: String, keepingLines: Bool = false) -> String {
        let breaks = !keepingLines && text.utf8.contains { $0 == 0x0D || $0 == 0x0A }
        let flat = breaks ? String(decoding: text.utf8.map { $0 == 0x0D || $0 == 0x0A ? 0x20 : $0 }, as: UTF8.self) : text
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
        if let (attachment, file) = message.firstAttachment {
            let name = file.flatMap { $0.split(separator: "/").last.map(String.init) }
                ?? attachment["url"]?.stringValue?.split(separator: "/").last.map(String.init)
            if let file, let name, let bytes = uploads.bytes(of: file, size: attachment["size"]?.exactInteger, item: message.alertID) {
                if !message.body.isEmpty { headers.append(("X-Message", Self.headerValue(message.body, keepingLines: true))) }
                headers.append(("Filename", name))
                headers.append(("Content-Type", attachment["type"]?.stringValue ?? "application/octet-stream"))
                return ServiceRequest(method: "PUT", url: config.url, headers: headers, body: bytes)
            }
            if let url = OutputMessage.httpURL(attachment["url"]?.stringValue) {
                headers.append(("X-Attach", url))
                if let name { headers.append(("X-Filename", name)) }
            }
        }
        headers.append(("Content-Type", "text/plain; charset=utf-8"))
        return ServiceRequest(method: "POST", url: config.url, headers: headers, body: Array(message.body.utf8))
    }

    func verdict(for response: ServiceResponse, to request: ServiceRequest, message: OutputMessage,
                 target: String) -> DeliveryVerdict {
        if request.method == "PUT",
           let why = uploads.refused(response, size: message.firstAttachment?.value["size"]?.exactInteger) {
            return .resend(why)
        }
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
