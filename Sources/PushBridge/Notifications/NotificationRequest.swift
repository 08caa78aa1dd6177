/// A remote notification request as APNs would receive it: headers and content.
///
/// The fields live in one shared buffer that is copied on the first write to a shared value
/// (as `NotificationContent`'s do), so handing a request from the mapper to the stage, the
/// decision and the publisher costs one reference count per hand-over, not a copy of every field.
public struct NotificationRequest: Sendable, Equatable {
    /// The fields. `@unchecked Sendable`: a buffer is only written while uniquely referenced
    /// (copy on write), so a buffer shared between threads is never mutated.
    private final class Storage: @unchecked Sendable {
        var id: String
        var pushType: PushType?
        var priority: Int
        var collapseID: String?
        var expiration: Int64?
        var mutableContent: Bool
        var contentAvailable: Bool
        var content: NotificationContent
        var liveActivity: LiveActivityUpdate?

        init(id: String, pushType: PushType?, priority: Int, collapseID: String?, expiration: Int64?,
             mutableContent: Bool, contentAvailable: Bool, content: NotificationContent, liveActivity: LiveActivityUpdate?) {
            self.id = id
            self.pushType = pushType
            self.priority = priority
            self.collapseID = collapseID
            self.expiration = expiration
            self.mutableContent = mutableContent
            self.contentAvailable = contentAvailable
            self.content = content
            self.liveActivity = liveActivity
        }

        func copy() -> Storage {
            Storage(id: id, pushType: pushType, priority: priority, collapseID: collapseID, expiration: expiration,
                    mutableContent: mutableContent, contentAvailable: contentAvailable, content: content,
                    liveActivity: liveActivity)
        }
    }

    private var storage: Storage

    /// The buffer, made unique first (copy on write).
    private mutating func uniqueStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// `apns-id`: a lowercase 8-4-4-4-12 UUID.
    public var id: String { get { storage.id } set { uniqueStorage().id = newValue } }
    /// `apns-push-type`; `nil` is the legacy case (no push type).
    public var pushType: PushType? { get { storage.pushType } set { uniqueStorage().pushType = newValue } }
    /// `apns-priority`: 10, 5 or 1.
    public var priority: Int { get { storage.priority } set { uniqueStorage().priority = newValue } }
    /// `apns-collapse-id`; when set it is the request's identifier.
    public var collapseID: String? { get { storage.collapseID } set { uniqueStorage().collapseID = newValue } }
    /// `apns-expiration` in UNIX seconds; 0 = now or never; `nil` = not set.
    public var expiration: Int64? { get { storage.expiration } set { uniqueStorage().expiration = newValue } }
    /// `aps.mutable-content: 1`: runs the extension stage.
    public var mutableContent: Bool { get { storage.mutableContent } set { uniqueStorage().mutableContent = newValue } }
    /// `aps.content-available: 1`.
    public var contentAvailable: Bool {
        get { storage.contentAvailable }
        set { uniqueStorage().contentAvailable = newValue }
    }
    /// The content to deliver (the `aps` alert fields, sound, badge, user info).
    public var content: NotificationContent { get { storage.content } set { uniqueStorage().content = newValue } }
    /// A Live Activity's `aps.event` and its keys; set, the request is published as one
    /// (`apns-push-type: liveactivity`) and is not an alert.
    var liveActivity: LiveActivityUpdate? {
        get { storage.liveActivity }
        set { uniqueStorage().liveActivity = newValue }
    }

    /// A request with the APNs headers' values and `content`.
    public init(id: String, pushType: PushType?, priority: Int, collapseID: String? = nil,
                expiration: Int64? = nil, mutableContent: Bool = false,
                contentAvailable: Bool = false, content: NotificationContent = NotificationContent()) {
        storage = Storage(id: id, pushType: pushType, priority: priority, collapseID: collapseID, expiration: expiration,
                          mutableContent: mutableContent, contentAvailable: contentAvailable, content: content,
                          liveActivity: nil)
    }

    /// Field-by-field equality (one shared buffer is equal without comparing).
    public static func == (a: NotificationRequest, b: NotificationRequest) -> Bool {
        if a.storage === b.storage && !(a.storage.content.relevanceScore?.isNaN ?? false) { return true }
        let x = a.storage, y = b.storage
        return x.id == y.id && x.pushType == y.pushType && x.priority == y.priority && x.collapseID == y.collapseID
            && x.expiration == y.expiration && x.mutableContent == y.mutableContent
            && x.contentAvailable == y.contentAvailable && x.content == y.content && x.liveActivity == y.liveActivity
    }

    /// The identifier Apple gives the request: the collapse id when set, else the apns-id.
    public var identifier: String { collapseID ?? id }

    /// `"none"` for the legacy case, else the push type's name.
    public var pushTypeName: String { pushType?.rawValue ?? "none" }
}
