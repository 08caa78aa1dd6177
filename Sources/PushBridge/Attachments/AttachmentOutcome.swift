/// Why an attachment was not attached (docs/attachments.md, "When a picture is late or
/// missing"): counted per route and reason, shown in `try` and the decision trace.
enum AttachmentFailure: String, Sendable, CaseIterable {
    /// The bytes are none of Apple's supported types.
    case unsupportedType = "UnsupportedType"
    /// The body is empty.
    case empty = "Empty"
    /// The bytes are over their type's limit.
    case tooLarge = "TooLarge"
    /// No bytes in time: the fetch failed (connection, status, redirects, limit, deadline),
    /// or nothing fresh arrived on the topic within the wait.
    case fetchFailed = "FetchFailed"
}

/// What became of one attachment of a request: attached (with its type and size) or not
/// (with the reason and a detail).
package struct AttachmentOutcome: Sendable, Equatable {
    var identifier: String
    /// `from_topic <topic>`, `url <url>`, `--attach <file>`: where the bytes came from or were looked for.
    var source: String
    /// The stored attachment; `nil` when it was not attached.
    var attachment: NotificationAttachment?
    var failure: AttachmentFailure?
    /// The HTTP status, libcurl's error, the limit passed, the topic waited on.
    var detail: String = ""

    static func attached(_ attachment: NotificationAttachment, source: String) -> AttachmentOutcome {
        AttachmentOutcome(identifier: attachment.identifier, source: source, attachment: attachment, failure: nil)
    }

    static func failed(_ identifier: String, source: String, _ failure: AttachmentFailure, _ detail: String) -> AttachmentOutcome {
        AttachmentOutcome(identifier: identifier, source: source, attachment: nil, failure: failure, detail: detail)
    }

    /// The trace's form: `{"identifier","attached":true,"type","size"}` or
    /// `{"identifier","attached":false,"reason","detail"}`.
    package var jsonValue: JSONValue {
        var o: JSONObject = ["identifier": .string(identifier)]
        if let a = attachment {
            o["attached"] = .bool(true)
            o["type"] = .string(a.type)
            o["size"] = .int(Int64(a.size))
            if let url = a.url { o["url"] = .string(url) }
        } else {
            o["attached"] = .bool(false)
            o["reason"] = .string(failure?.rawValue ?? AttachmentFailure.fetchFailed.rawValue)
            o["detail"] = .string(detail)
        }
        o["source"] = .string(source)
        return .object(o)
    }

    /// One line for `try`: `snapshot  image/jpeg 12345 bytes  from_topic cam/snapshot`.
    package var line: String {
        if let a = attachment { return "\(identifier): \(a.type), \(a.size) bytes (\(source))" }
        return "\(identifier): not attached: \(failure?.rawValue ?? "FetchFailed") (\(detail)) (\(source))"
    }
}

/// Bytes checked against Apple's types and the configured limits.
enum CheckedBytes {
    /// The type of `bytes`, or why they cannot be attached.
    static func check(_ bytes: [UInt8], limits: AttachmentsConfig) -> Result<MediaType, CheckFailure> {
        if bytes.isEmpty { return .failure(CheckFailure(failure: .empty, detail: "the body is empty")) }
        guard let media = MediaType.sniff(bytes) else {
            return .failure(CheckFailure(failure: .unsupportedType, detail: "the bytes are not JPEG, PNG, GIF, MP3, M4A/AAC, WAV, AIFF, MP4/M4V, MOV or MPEG"
                                            + (looksLikeText(bytes) ? " (they look like text)" : "")))
        }
        let limit = limits.limit(for: media.kind)
        if bytes.count > limit {
            return .failure(CheckFailure(failure: .tooLarge,
                                         detail: "\(bytes.count) bytes of \(media.mime), over the \(media.kind.rawValue) limit of \(ByteCount.text(limit))"))
        }
        return .success(media)
    }

    /// A failure with its detail.
    struct CheckFailure: Error, Sendable {
        var failure: AttachmentFailure
        var detail: String
    }

    private static func looksLikeText(_ bytes: [UInt8]) -> Bool {
        bytes.prefix(64).allSatisfy { $0 == 9 || $0 == 10 || $0 == 13 || ($0 >= 0x20 && $0 < 0x7F) || $0 >= 0x80 }
    }
}
