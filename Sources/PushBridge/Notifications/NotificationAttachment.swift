/// One attachment of a notification: a picture, sound or film the bridge stored for it,
/// as Apple's `UNNotificationAttachment` holds one (docs/attachments.md).
///
/// The type is always the one read from the bytes; `file` is where the bytes are stored
/// and `url` the capability URL phones and browsers fetch them from (`nil` when the bridge
/// has no HTTP address to give).
public struct NotificationAttachment: Sendable, Equatable, Hashable {
    /// Unique within the request (`snapshot`, `attachment-1`).
    public var identifier: String
    /// The MIME type read from the bytes (`image/jpeg`).
    public var type: String
    /// The size in bytes.
    public var size: Int
    /// The stored file's path.
    public var file: String
    /// The URL the attachment is served at, or `nil`.
    public var url: String?

    /// An attachment stored at `file`.
    public init(identifier: String, type: String, size: Int, file: String, url: String? = nil) {
        self.identifier = identifier
        self.type = type
        self.size = size
        self.file = file
        self.url = url
    }

    /// Apple's uniform type identifier for `type` (`public.jpeg`); `public.data` for any other.
    public var typeHint: String { Self.uniformTypes[type] ?? "public.data" }

    /// `image`, `audio` or `video`: the first part of the MIME type.
    var kind: String { String(type.prefix { $0 != "/" }) }

    /// The MIME types of Apple's supported attachment formats and their uniform type identifiers.
    static let uniformTypes: [String: String] = [
        "image/jpeg": "public.jpeg", "image/png": "public.png", "image/gif": "com.compuserve.gif",
        "audio/mpeg": "public.mp3", "audio/mp4": "public.mpeg-4-audio", "audio/aac": "public.aac-audio",
        "audio/wav": "com.microsoft.waveform-audio", "audio/aiff": "public.aiff-audio",
        "video/mp4": "public.mpeg-4", "video/x-m4v": "com.apple.m4v-video",
        "video/quicktime": "com.apple.quicktime-movie", "video/mpeg": "public.mpeg",
    ]

    /// `{identifier, type, size}` and `url` when there is one: what templates, the external
    /// process and the display message see.
    var jsonValue: JSONValue {
        var o: JSONObject = ["identifier": .string(identifier), "type": .string(type), "size": .int(Int64(size))]
        if let url { o["url"] = .string(url) }
        return .object(o)
    }
}
