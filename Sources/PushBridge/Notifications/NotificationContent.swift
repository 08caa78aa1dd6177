/// The content of a notification: what `aps` and the custom keys carry.
///
/// A value type; the Apple-shaped `UNNotificationContent` classes wrap it.
public struct NotificationContent: Sendable, Equatable {
    public var title: String? = nil
    public var subtitle: String? = nil
    public var body: String? = nil
    /// `"default"` or a sound name.
    public var sound: String? = nil
    public var badge: Int? = nil
    public var threadID: String? = nil
    public var category: String? = nil
    /// `passive`, `active`, `time-sensitive` or `critical`.
    public var interruptionLevel: String? = nil
    /// 0…1.
    public var relevanceScore: Double? = nil
    public var targetContentID: String? = nil
    public var filterCriteria: String? = nil
    /// Attachment identifiers or URLs (kept for Apple API parity; never rendered).
    public var attachments: [String] = []
    /// Custom keys beside `aps` (an object), or any JSON value for non-apns inputs.
    public var userInfo: JSONValue = .object([:])

    public init() {}

    /// `true` when there is a non-empty title, subtitle or body.
    public var hasAlertText: Bool {
        !(title ?? "").isEmpty || !(subtitle ?? "").isEmpty || !(body ?? "").isEmpty
    }

    /// `true` for Apple's "empty content": no alert text, attachments or sound.
    public var isEmpty: Bool {
        !hasAlertText && attachments.isEmpty && (sound ?? "").isEmpty
    }
}

/// The `interruption-level` values.
public enum InterruptionLevel: String, Sendable, CaseIterable {
    case passive, active
    case timeSensitive = "time-sensitive"
    case critical
}
