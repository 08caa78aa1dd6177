/// The content of a notification: what `aps` and the custom keys carry.
///
/// A value type; the Apple-shaped `UNNotificationContent` classes wrap it. The fields live
/// in one shared buffer that is copied on the first write to a shared value, so passing
/// content along the pipeline costs one reference count, not one per field.
public struct NotificationContent: Sendable, Equatable {
    /// The fields as stored: the text ones in the slots `ContentField` gives them.
    struct Fields: Equatable {
        /// One slot per text field of `ContentField` (a new one adds a slot here).
        var texts = InlineArray<9, String?>(repeating: nil)
        var soundCritical = false
        var soundVolume: Double?
        var badge: Int?
        var relevanceScore: Double?
        var attachments: [NotificationAttachment] = []
        var userInfo: JSONValue = .object(JSONObject())
        /// See `NotificationContent.userInfoSizeBound` (not compared: it describes `userInfo`).
        var userInfoSizeBound: Int?

        static func == (a: Fields, b: Fields) -> Bool {
            a.texts.indices.allSatisfy { a.texts[$0] == b.texts[$0] } && a.soundCritical == b.soundCritical
                && a.soundVolume == b.soundVolume && a.badge == b.badge && a.relevanceScore == b.relevanceScore
                && a.attachments == b.attachments && a.userInfo == b.userInfo
        }
    }

    /// The fields' buffer. `@unchecked Sendable`: a buffer is only written while uniquely
    /// referenced (copy on write), so a buffer shared between threads is never mutated.
    private final class Storage: @unchecked Sendable {
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    /// The buffer of every content that was never written to (`NotificationContent()`).
    private static let emptyStorage = Storage(Fields())
    private var storage: Storage

    /// The buffer, made unique first (copy on write).
    private mutating func uniqueStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
        return storage
    }

    /// A text field (`nil` for `badge` and `relevance_score`, which are not text).
    subscript(text field: ContentField) -> String? {
        get {
            guard let slot = field.slot else { return nil }
            return storage.fields.texts[slot]
        }
        set { if let slot = field.slot { uniqueStorage().fields.texts[slot] = newValue } }
    }

    /// The alert's title (`aps.alert.title`).
    public var title: String? { get { self[text: .title] } set { self[text: .title] = newValue } }
    /// The alert's subtitle (`aps.alert.subtitle`).
    public var subtitle: String? { get { self[text: .subtitle] } set { self[text: .subtitle] = newValue } }
    /// The alert's body (`aps.alert.body`).
    public var body: String? { get { self[text: .body] } set { self[text: .body] = newValue } }
    /// `"default"` or a sound name.
    public var sound: String? { get { self[text: .sound] } set { self[text: .sound] = newValue } }
    /// `true` for Apple's critical-alert sound (`aps.sound` as `{"critical": 1, …}`).
    public var soundCritical: Bool {
        get { storage.fields.soundCritical }
        set { uniqueStorage().fields.soundCritical = newValue }
    }
    /// The critical sound's volume, 0…1 (`aps.sound.volume`).
    public var soundVolume: Double? {
        get { storage.fields.soundVolume }
        set { uniqueStorage().fields.soundVolume = newValue }
    }
    /// The badge number (`aps.badge`; 0 clears it).
    public var badge: Int? { get { storage.fields.badge } set { uniqueStorage().fields.badge = newValue } }
    /// The thread identifier that groups notifications (`aps.thread-id`).
    public var threadID: String? { get { self[text: .threadID] } set { self[text: .threadID] = newValue } }
    /// The category, for actions (`aps.category`).
    public var category: String? { get { self[text: .category] } set { self[text: .category] = newValue } }
    /// `passive`, `active`, `time-sensitive` or `critical`.
    public var interruptionLevel: String? {
        get { self[text: .interruptionLevel] }
        set { self[text: .interruptionLevel] = newValue }
    }
    /// 0…1.
    public var relevanceScore: Double? {
        get { storage.fields.relevanceScore }
        set { uniqueStorage().fields.relevanceScore = newValue }
    }
    /// The window to bring forward (`aps.target-content-id`).
    public var targetContentID: String? {
        get { self[text: .targetContentID] }
        set { self[text: .targetContentID] = newValue }
    }
    /// The Focus filter criteria (`aps.filter-criteria`).
    public var filterCriteria: String? {
        get { self[text: .filterCriteria] }
        set { self[text: .filterCriteria] = newValue }
    }
    /// The attachments the bridge stored for this notification, in order (docs/attachments.md).
    public var attachments: [NotificationAttachment] {
        get { storage.fields.attachments }
        set { uniqueStorage().fields.attachments = newValue }
    }
    /// Custom keys beside `aps` (an object), or any JSON value for non-apns inputs.
    public var userInfo: JSONValue {
        get { storage.fields.userInfo }
        set {
            let s = uniqueStorage()
            s.fields.userInfo = newValue
            s.fields.userInfoSizeBound = nil
        }
    }
    /// An upper bound of the length of `userInfo`'s JSON text in bytes, when one is known
    /// without serializing it (the mapper's, for the payload as parsed: `JSONValue.parse(_:
    /// serializedSizeBound:)`); `nil` again whenever `userInfo` is set.
    var userInfoSizeBound: Int? {
        get { storage.fields.userInfoSizeBound }
        set { uniqueStorage().fields.userInfoSizeBound = newValue }
    }

    /// Empty content: no alert text, no sound, `userInfo` an empty object.
    public init() { storage = Self.emptyStorage }

    /// Empty content in a buffer of its own: the first writes change it in place instead of
    /// copying the shared empty one (a mapper filling a route's fields).
    static func unshared() -> NotificationContent {
        var content = NotificationContent()
        content.storage = Storage(Fields())
        return content
    }

    /// `true` when both share one buffer, so they are equal without comparing fields
    /// (unless a NaN relevance score makes a content unequal to itself).
    func isIdentical(to other: NotificationContent) -> Bool {
        storage === other.storage && !(storage.fields.relevanceScore?.isNaN ?? false)
    }

    /// Field-by-field equality.
    public static func == (a: NotificationContent, b: NotificationContent) -> Bool {
        a.isIdentical(to: b) || a.storage.fields == b.storage.fields
    }

    /// `aps.sound` as APNs carries it: the name, or Apple's critical-alert dictionary
    /// `{"critical": 1, "name": …, "volume": …}` when the sound is critical or has a volume.
    var soundJSON: JSONValue? {
        guard let sound else { return nil }
        guard soundCritical || soundVolume != nil else { return .string(sound) }
        var d: JSONObject = ["critical": .int(soundCritical ? 1 : 0), "name": .string(sound)]
        if let soundVolume { d["volume"] = .double(soundVolume) }
        return .object(d)
    }

    /// Sets `sound`, `soundCritical` and `soundVolume` from an `aps.sound` value: a name, or
    /// the critical-alert dictionary (`name` defaults to `"default"`, `critical` is 0/1 or a
    /// boolean, `volume` a number from 0 to 1). Returns what is wrong, or `nil`.
    mutating func setSound(_ value: JSONValue?) -> String? {
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
        // Read in place (no copy of each text): slots 0, 1 and 2 are title, subtitle and body
        // (`ContentField`'s table; ContentFieldTests holds them there).
        let texts = storage
        return texts.fields.texts[0]?.isEmpty == false || texts.fields.texts[1]?.isEmpty == false
            || texts.fields.texts[2]?.isEmpty == false
    }

    /// `perText` plus the `JSONValue.stringSizeBound` of each text field present, read in place.
    func textSizeBound(perText: Int) -> Int {
        let texts = storage
        var total = 0
        for slot in texts.fields.texts.indices {
            if let count = texts.fields.texts[slot]?.utf8.count { total += perText + JSONValue.stringSizeBound(utf8Count: count) }
        }
        return total
    }

    /// `true` for Apple's "empty content": no alert text, attachments or sound.
    public var isEmpty: Bool {
        !hasAlertText && attachments.isEmpty && (sound ?? "").isEmpty
    }
}

/// The `interruption-level` values.
enum InterruptionLevel: String, Sendable, CaseIterable {
    case passive, active
    case timeSensitive = "time-sensitive"
    case critical
}
