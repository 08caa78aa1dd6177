import Foundation

/// The uneditable content of a notification, shaped like Apple's `UNNotificationContent`.
///
/// It wraps the value type `NotificationContent` (``notificationContent``); the properties
/// read through to it. `UNNotificationContent()` is Apple's "empty content": handing it to
/// the content handler asks for suppression (granted with the filtering entitlement and push type `alert`).
/// `mutableCopy()` gives a ``UNMutableNotificationContent``; `copy()` an immutable copy.
open class UNNotificationContent: NSObject, NSCopying, NSMutableCopying {
    /// The wrapped value. Subclasses change it through the mutable properties.
    public internal(set) var notificationContent: NotificationContent

    /// Empty content: no alert text, sound or attachments.
    public override init() {
        notificationContent = NotificationContent()
        super.init()
    }

    /// Content wrapping `content`.
    public init(_ content: NotificationContent) {
        notificationContent = content
        super.init()
    }

    /// The title (`""` when absent).
    open var title: String { notificationContent.title ?? "" }
    /// The subtitle (`""` when absent).
    open var subtitle: String { notificationContent.subtitle ?? "" }
    /// The body (`""` when absent).
    open var body: String { notificationContent.body ?? "" }
    /// The badge number, or `nil` to leave the badge alone.
    open var badge: NSNumber? { notificationContent.badge.map { NSNumber(value: $0) } }
    /// The sound, or `nil` for a silent notification.
    open var sound: UNNotificationSound? { UNNotificationSound(content: notificationContent) }
    /// `thread-id` (`""` when absent).
    open var threadIdentifier: String { notificationContent.threadID ?? "" }
    /// `category` (`""` when absent).
    open var categoryIdentifier: String { notificationContent.category ?? "" }
    /// `target-content-id`, or `nil`.
    open var targetContentIdentifier: String? { notificationContent.targetContentID }
    /// `interruption-level` (`.active` when absent, as on Apple's devices).
    open var interruptionLevel: UNNotificationInterruptionLevel {
        UNNotificationInterruptionLevel(name: notificationContent.interruptionLevel) ?? .active
    }
    /// `relevance-score` (0 when absent).
    open var relevanceScore: Double { notificationContent.relevanceScore ?? 0 }
    /// `filter-criteria`, or `nil`.
    open var filterCriteria: String? { notificationContent.filterCriteria }
    /// The attachments the bridge stored, each with its file URL and type.
    open var attachments: [UNNotificationAttachment] {
        notificationContent.attachments.map(UNNotificationAttachment.init(stored:))
    }
    /// The custom keys. A `userInfo` that is not a JSON object (possible for `input: text`)
    /// reads as `[:]` and is kept as it is unless assigned.
    open var userInfo: [AnyHashable: Any] { UserInfoBridge.dictionary(from: notificationContent.userInfo) }

    /// An immutable copy.
    open func copy(with zone: NSZone? = nil) -> Any { UNNotificationContent(notificationContent) }

    /// A mutable copy.
    open func mutableCopy(with zone: NSZone? = nil) -> Any { UNMutableNotificationContent(notificationContent) }

    /// Equal when the contents are (every field, user info included).
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationContent else { return false }
        return other.notificationContent == notificationContent
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int { notificationContent.title?.hashValue ?? 0 }

    /// The content's fields, for debugging.
    open override var description: String {
        "<\(type(of: self)) title=\(title.debugDescription) body=\(body.debugDescription)>"
    }
}

/// The editable content of a notification, shaped like Apple's `UNMutableNotificationContent`.
open class UNMutableNotificationContent: UNNotificationContent {
    /// Stores `text` in `field`, keeping an absent field absent when it is set to `""`.
    private func store(_ field: ContentField, _ text: String) {
        notificationContent[text: field] = text.isEmpty && notificationContent[text: field] == nil ? nil : text
    }

    /// The title; settable.
    open override var title: String { get { super.title } set { store(.title, newValue) } }
    /// The subtitle; settable.
    open override var subtitle: String { get { super.subtitle } set { store(.subtitle, newValue) } }
    /// The body; settable.
    open override var body: String { get { super.body } set { store(.body, newValue) } }
    /// The badge number; settable (`nil` leaves the badge as it is).
    open override var badge: NSNumber? { get { super.badge } set { notificationContent.badge = newValue?.intValue } }
    /// The sound; settable (`nil` is no sound).
    open override var sound: UNNotificationSound? {
        get { super.sound }
        set {
            notificationContent.sound = newValue?.storedName
            notificationContent.soundCritical = newValue?.isCritical ?? false
            notificationContent.soundVolume = newValue?.criticalVolume
        }
    }
    /// The thread identifier; settable.
    open override var threadIdentifier: String { get { super.threadIdentifier } set { store(.threadID, newValue) } }
    /// The category identifier; settable.
    open override var categoryIdentifier: String { get { super.categoryIdentifier } set { store(.category, newValue) } }
    /// The target content identifier; settable.
    open override var targetContentIdentifier: String? {
        get { super.targetContentIdentifier } set { notificationContent.targetContentID = newValue }
    }
    /// The interruption level; settable.
    open override var interruptionLevel: UNNotificationInterruptionLevel {
        get { super.interruptionLevel } set { notificationContent.interruptionLevel = newValue.name }
    }
    /// The relevance score (0...1); settable.
    open override var relevanceScore: Double {
        get { super.relevanceScore } set { notificationContent.relevanceScore = min(1, max(0, newValue)) }
    }
    /// The Focus filter criteria; settable.
    open override var filterCriteria: String? { get { super.filterCriteria } set { notificationContent.filterCriteria = newValue } }
    /// The attachments; settable.
    open override var attachments: [UNNotificationAttachment] {
        get { super.attachments } set { notificationContent.attachments = newValue.map(\.notificationAttachment) }
    }
    /// The user info (property-list values); settable.
    open override var userInfo: [AnyHashable: Any] {
        get { super.userInfo } set { notificationContent.userInfo = UserInfoBridge.json(from: newValue) }
    }
}

/// A notification's importance and delivery timing, like Apple's enum of the same name.
public enum UNNotificationInterruptionLevel: UInt, Sendable, CaseIterable {
    case passive = 0, active = 1, timeSensitive = 2, critical = 3

    /// The APNs spelling: `passive`, `active`, `time-sensitive`, `critical`.
    public var name: String { InterruptionLevel.allCases[Int(rawValue)].rawValue }

    /// The level for an APNs spelling; `nil` for `nil` or an unknown name.
    public init?(name: String?) {
        guard let match = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = match
    }
}

/// The name of a sound file, like Apple's `UNNotificationSoundName`.
public struct UNNotificationSoundName: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    /// The file name.
    public var rawValue: String
    /// A name from its raw value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A name from a file name.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// A name from a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }
}

/// A sound played with a notification: `.default`, a named file, or a critical-alert sound
/// (APNs `sound`, or the dictionary `{"critical": 1, "name": …, "volume": …}`).
public final class UNNotificationSound: NSObject, Sendable {
    /// `"default"` or the file name, as it travels in `aps.sound` (or its `name`).
    public let storedName: String
    /// `true` for a critical-alert sound (played even when the device is muted).
    public let isCritical: Bool
    /// The critical sound's volume, 0…1; `nil` for the system's.
    public let criticalVolume: Double?

    init(storedName: String, critical: Bool = false, volume: Double? = nil) {
        self.storedName = storedName
        self.isCritical = critical
        self.criticalVolume = volume
        super.init()
    }

    /// The sound of `content`, or `nil` when it has none.
    convenience init?(content: NotificationContent) {
        guard let name = content.sound else { return nil }
        self.init(storedName: name, critical: content.soundCritical, volume: content.soundVolume)
    }

    /// The default sound.
    public class var `default`: UNNotificationSound { UNNotificationSound(storedName: "default") }

    /// The default critical-alert sound (needs Apple's critical-alerts entitlement on a device).
    public class var defaultCritical: UNNotificationSound { UNNotificationSound(storedName: "default", critical: true) }

    /// The default critical-alert sound at `volume` (0…1).
    public class func defaultCriticalSound(withAudioVolume volume: Float) -> UNNotificationSound {
        UNNotificationSound(storedName: "default", critical: true, volume: Self.clamped(volume))
    }

    /// A critical-alert sound from a file.
    public class func criticalSoundNamed(_ name: UNNotificationSoundName) -> UNNotificationSound {
        UNNotificationSound(storedName: name.rawValue, critical: true)
    }

    /// A critical-alert sound from a file at `volume` (0…1).
    public class func criticalSoundNamed(_ name: UNNotificationSoundName,
                                         withAudioVolume volume: Float) -> UNNotificationSound {
        UNNotificationSound(storedName: name.rawValue, critical: true, volume: Self.clamped(volume))
    }

    /// A sound file by name.
    public convenience init(named name: UNNotificationSoundName) {
        self.init(storedName: name.rawValue)
    }

    private static func clamped(_ volume: Float) -> Double {
        // Float → Double through its shortest text, so 0.8 stays 0.8 (not 0.800000011920929).
        min(1, max(0, Double(volume.description) ?? Double(volume)))
    }

    /// Equal when the name and the critical flag and volume are.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationSound else { return false }
        return other.storedName == storedName && other.isCritical == isCritical && other.criticalVolume == criticalVolume
    }

    /// A hash consistent with `isEqual(_:)`.
    public override var hash: Int { storedName.hashValue ^ (isCritical ? 1 : 0) }
}

/// A media attachment: a file the bridge stored for the notification (docs/attachments.md).
///
/// The attachments of a request are the ones the route's `attachments:` gathered; an
/// extension may keep fewer (assign a shorter list) but never add one: an attachment it
/// makes itself is dropped when the content comes back.
public final class UNNotificationAttachment: NSObject, Sendable {
    /// Unique within the request (`snapshot`).
    public let identifier: String
    /// The stored file (a `file:` URL).
    public let url: URL
    /// Apple's uniform type identifier of the bytes (`public.jpeg`); `""` for one made here.
    public let type: String
    /// The stored attachment behind it; `nil` for one an extension made.
    let stored: NotificationAttachment?

    /// An attachment for `url`. The bridge only delivers the ones it stored itself, so one
    /// made here does not survive the extension stage.
    public init(identifier: String, url: URL, options: [AnyHashable: Any]? = nil) throws {
        self.identifier = identifier
        self.url = url
        type = ""
        stored = nil
        super.init()
    }

    /// The uniform type identifier (`type` under the name of Apple's option key
    /// `UNNotificationAttachmentOptionsTypeHintKey`).
    public var typeHint: String { type }

    init(stored: NotificationAttachment) {
        identifier = stored.identifier
        url = URL(fileURLWithPath: stored.file)
        type = stored.typeHint
        self.stored = stored
        super.init()
    }

    /// What travels back: the stored attachment, or one holding only the identifier.
    var notificationAttachment: NotificationAttachment {
        stored ?? NotificationAttachment(identifier: identifier, type: "", size: 0, file: url.path)
    }
}
