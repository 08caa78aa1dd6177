/// A remote notification request as APNs would receive it: headers and content.
///
/// The fields live in one copy-on-write buffer (as `NotificationContent`'s do): handing a
/// request along the pipeline costs one reference count per hand-over.
public struct NotificationRequest: Sendable, Equatable {
    /// The fields, in one copy-on-write buffer.
    private struct Fields: Sendable, Equatable {
        var id: String
        var pushType: PushType?
        var priority: Int
        var collapseID: String?
        var expiration: Int64?
        var mutableContent: Bool
        var contentAvailable: Bool
        var content: NotificationContent
        var liveActivity: LiveActivityUpdate?
    }

    private var fields: CopyOnWrite<Fields>

    /// `apns-id`: a lowercase 8-4-4-4-12 UUID.
    public var id: String { get { fields.value.id } set { fields.value.id = newValue } }
    /// `apns-push-type`; `nil` is the legacy case (no push type).
    public var pushType: PushType? { get { fields.value.pushType } set { fields.value.pushType = newValue } }
    /// `apns-priority`: 10, 5 or 1.
    public var priority: Int { get { fields.value.priority } set { fields.value.priority = newValue } }
    /// `apns-collapse-id`; when set it is the request's identifier.
    public var collapseID: String? { get { fields.value.collapseID } set { fields.value.collapseID = newValue } }
    /// `apns-expiration` in UNIX seconds; 0 = now or never; `nil` = not set.
    public var expiration: Int64? { get { fields.value.expiration } set { fields.value.expiration = newValue } }
    /// `aps.mutable-content: 1`: runs the extension stage.
    public var mutableContent: Bool { get { fields.value.mutableContent } set { fields.value.mutableContent = newValue } }
    /// `aps.content-available: 1`.
    public var contentAvailable: Bool {
        get { fields.value.contentAvailable }
        set { fields.value.contentAvailable = newValue }
    }
    /// The content to deliver (the `aps` alert fields, sound, badge, user info).
    public var content: NotificationContent { get { fields.value.content } set { fields.value.content = newValue } }
    /// A Live Activity's `aps.event` and its keys; set, the request is published as one
    /// (`apns-push-type: liveactivity`) and is not an alert.
    package var liveActivity: LiveActivityUpdate? {
        get { fields.value.liveActivity }
        set { fields.value.liveActivity = newValue }
    }

    /// A request with the APNs headers' values and `content`.
    public init(id: String, pushType: PushType?, priority: Int, collapseID: String? = nil,
                expiration: Int64? = nil, mutableContent: Bool = false,
                contentAvailable: Bool = false, content: NotificationContent = NotificationContent()) {
        fields = CopyOnWrite(Fields(id: id, pushType: pushType, priority: priority, collapseID: collapseID,
                                    expiration: expiration, mutableContent: mutableContent,
                                    contentAvailable: contentAvailable, content: content, liveActivity: nil))
    }

    /// Field-by-field equality (one shared buffer is equal without comparing).
    public static func == (a: NotificationRequest, b: NotificationRequest) -> Bool {
        (a.fields.isIdentical(to: b.fields) && !(a.content.relevanceScore?.isNaN ?? false)) || a.fields.value == b.fields.value
    }

    /// The identifier Apple gives the request: the collapse id when set, else the apns-id.
    public var identifier: String { collapseID ?? id }

    /// `"none"` for the legacy case, else the push type's name.
    public var pushTypeName: String { pushType?.rawValue ?? "none" }
}
