/// A remote notification request as APNs would receive it: headers and content.
public struct NotificationRequest: Sendable, Equatable {
    /// `apns-id`: a lowercase 8-4-4-4-12 UUID.
    public var id: String
    /// `apns-push-type`; `nil` is the legacy case (no push type).
    public var pushType: PushType?
    /// `apns-priority`: 10, 5 or 1.
    public var priority: Int
    /// `apns-collapse-id`; when set it is the request's identifier.
    public var collapseID: String?
    /// `apns-expiration` in UNIX seconds; 0 = now or never; `nil` = not set.
    public var expiration: Int64?
    /// `aps.mutable-content: 1`: runs the extension stage.
    public var mutableContent: Bool
    /// `aps.content-available: 1`.
    public var contentAvailable: Bool
    public var content: NotificationContent
    /// A Live Activity's `aps.event` and its keys; set, the request is published as one
    /// (`apns-push-type: liveactivity`) and is not an alert.
    public var liveActivity: LiveActivityUpdate? = nil

    public init(id: String, pushType: PushType?, priority: Int, collapseID: String? = nil,
                expiration: Int64? = nil, mutableContent: Bool = false,
                contentAvailable: Bool = false, content: NotificationContent = NotificationContent()) {
        self.id = id
        self.pushType = pushType
        self.priority = priority
        self.collapseID = collapseID
        self.expiration = expiration
        self.mutableContent = mutableContent
        self.contentAvailable = contentAvailable
        self.content = content
    }

    /// The identifier Apple gives the request: the collapse id when set, else the apns-id.
    public var identifier: String { collapseID ?? id }

    /// `"none"` for the legacy case, else the push type's name.
    public var pushTypeName: String { pushType?.rawValue ?? "none" }
}
