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
        var soundCritical = false
        var soundVolume: Double? = nil
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
            soundCritical = other.soundCritical
            soundVolume = other.soundVolume
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
    /// `true` for Apple's critical-alert sound (`aps.sound` as `{"critical": 1, …}`).
    public var soundCritical: Bool {
        get { storage.soundCritical }
        set { uniqueStorage().soundCritical = newValue }
    }
    /// The critical sound's volume, 0…1 (`aps.sound.volume`).
    public var soundVolume: Double? {
        get { storage.soundVolume }
        set { uniqueStorage().soundVolume = newValue }
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
            && x.soundCritical == y.soundCritical
            && x.soundVolume == y.soundVolume
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

    /// `aps.sound` as APNs carries it: the name, or Apple's critical-alert dictionary
    /// `{"critical": 1, "name": …, "volume": …}` when the sound is critical or has a volume.
    public var soundJSON: JSONValue? {
        guard let sound else { return nil }
        guard soundCritical || soundVolume != nil else { return .string(sound) }
        var d: JSONObject = ["critical": .int(soundCritical ? 1 : 0), "name": .string(sound)]
        if let soundVolume { d["volume"] = .double(soundVolume) }
        return .object(d)
    }

    /// Sets `sound`, `soundCritical` and `soundVolume` from an `aps.sound` value: a name, or
    /// the critical-alert dictionary (`name` defaults to `"default"`, `critical` is 0/1 or a
    /// boolean, `volume` a number from 0 to 1). Returns what is wrong, or `nil`.
    public mutating func setSound(_ value: JSONValue?) -> String? {
        switch value {
        case nil, .null?:
            sound = nil; soundCritical = false; soundVolume = nil
        case .string(let name)?:
            sound = name; soundCritical = false; soundVolume = nil
        case .object(let d)?:
            switch d["name"] {
            case nil, .null?: sound = "default"
            case .string(let name)?: sound = name
            default: return "'name' must be a string"
            }
            switch d["critical"] {
            case nil, .null?: soundCritical = false
            case .int(let n)? where n == 0 || n == 1: soundCritical = n == 1
            case .bool(let b)?: soundCritical = b
            default: return "'critical' must be 0 or 1"
            }
            switch d["volume"] {
            case nil, .null?: soundVolume = nil
            case .int(let n)? where n == 0 || n == 1: soundVolume = Double(n)
            case .double(let v)? where v >= 0 && v <= 1: soundVolume = v
            default: return "'volume' must be a number from 0 to 1"
            }
        default:
            return "must be a string or a dictionary"
        }
        return nil
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
