/// The content of a notification: what `aps` and the custom keys carry.
///
/// A value type; the Apple-shaped `UNNotificationContent` classes wrap it. The fields live
/// in one shared buffer that is copied on the first write to a shared value, so passing
/// content along the pipeline costs one reference count, not one per field.
public struct NotificationContent: Sendable, Equatable {
    /// The fields. `@unchecked Sendable`: a buffer is only written while uniquely
    /// referenced (copy on write), so a buffer shared between threads is never mutated.
    private final class Storage: @unchecked Sendable {
        var title: String? = nil
        var subtitle: String? = nil
        var body: String? = nil
        var sound: String? = nil
        var badge: Int? = nil
        var threadID: String? = nil
        var category: String? = nil
        var interruptionLevel: String? = nil
        var relevanceScore: Double? = nil
        var targetContentID: String? = nil
        var filterCriteria: String? = nil
        var attachments: [String] = []
        var userInfo: JSONValue = .object([:])

        init() {}

        init(copying other: Storage) {
            title = other.title
            subtitle = other.subtitle
            body = other.body
            sound = other.sound
            badge = other.badge
            threadID = other.threadID
            category = other.category
            interruptionLevel = other.interruptionLevel
            relevanceScore = other.relevanceScore
            targetContentID = other.targetContentID
            filterCriteria = other.filterCriteria
            attachments = other.attachments
            userInfo = other.userInfo
        }
    }

    /// The buffer of every content that was never written to (`NotificationContent()`).
    private static let emptyStorage = Storage()
    private var storage: Storage

    /// The buffer, made unique first (copy on write).
    private mutating func uniqueStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(copying: storage) }
        return storage
    }

    public var title: String? {
        get { storage.title }
        set { uniqueStorage().title = newValue }
    }
    public var subtitle: String? {
        get { storage.subtitle }
        set { uniqueStorage().subtitle = newValue }
    }
    public var body: String? {
        get { storage.body }
        set { uniqueStorage().body = newValue }
    }
    /// `"default"` or a sound name.
    public var sound: String? {
        get { storage.sound }
        set { uniqueStorage().sound = newValue }
    }
    public var badge: Int? {
        get { storage.badge }
        set { uniqueStorage().badge = newValue }
    }
    public var threadID: String? {
        get { storage.threadID }
        set { uniqueStorage().threadID = newValue }
    }
    public var category: String? {
        get { storage.category }
        set { uniqueStorage().category = newValue }
    }
    /// `passive`, `active`, `time-sensitive` or `critical`.
    public var interruptionLevel: String? {
        get { storage.interruptionLevel }
        set { uniqueStorage().interruptionLevel = newValue }
    }
    /// 0…1.
    public var relevanceScore: Double? {
        get { storage.relevanceScore }
        set { uniqueStorage().relevanceScore = newValue }
    }
    public var targetContentID: String? {
        get { storage.targetContentID }
        set { uniqueStorage().targetContentID = newValue }
    }
    public var filterCriteria: String? {
        get { storage.filterCriteria }
        set { uniqueStorage().filterCriteria = newValue }
    }
    /// Attachment identifiers or URLs (kept for Apple API parity; never rendered).
    public var attachments: [String] {
        get { storage.attachments }
        set { uniqueStorage().attachments = newValue }
    }
    /// Custom keys beside `aps` (an object), or any JSON value for non-apns inputs.
    public var userInfo: JSONValue {
        get { storage.userInfo }
        set { uniqueStorage().userInfo = newValue }
    }

    /// Empty content: no alert text, no sound, `userInfo` an empty object.
    public init() { storage = Self.emptyStorage }

    /// `true` when both share one buffer, so they are equal without comparing fields
    /// (unless a NaN relevance score makes a content unequal to itself).
    func isIdentical(to other: NotificationContent) -> Bool {
        storage === other.storage && !(storage.relevanceScore?.isNaN ?? false)
    }

    /// Field-by-field equality.
    public static func == (a: NotificationContent, b: NotificationContent) -> Bool {
        if a.isIdentical(to: b) { return true }
        let x = a.storage, y = b.storage
        return x.title == y.title
            && x.subtitle == y.subtitle
            && x.body == y.body
            && x.sound == y.sound
            && x.badge == y.badge
            && x.threadID == y.threadID
            && x.category == y.category
            && x.interruptionLevel == y.interruptionLevel
            && x.relevanceScore == y.relevanceScore
            && x.targetContentID == y.targetContentID
            && x.filterCriteria == y.filterCriteria
            && x.attachments == y.attachments
            && x.userInfo == y.userInfo
    }

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
