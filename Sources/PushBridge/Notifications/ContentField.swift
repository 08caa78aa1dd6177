/// The fields of notification content, one row each: the table that expressions'
/// `content`, the extension wire, the `set` filter, a route's `alert:` keys, the APNs body
/// and the display message are all driven by. Adding a text field is a row here with the
/// next slot, one more slot in `NotificationContent.Fields.texts`, and its public accessor.
///
/// The sound's critical-alert parts (`sound_critical`, `sound_volume`), `attachments` and
/// `user_info` are not rows: each representation writes those its own way.
enum ContentField: Int, CaseIterable, Sendable {
    case title, subtitle, body, sound, badge, threadID, category, interruptionLevel, relevanceScore
    case targetContentID, filterCriteria

    /// What a field holds, which decides how each representation reads it.
    package enum Kind: Sendable {
        /// Any text.
        case text
        /// One of the `InterruptionLevel` names.
        case level
        /// An integer (`badge`).
        case integer
        /// A number from 0 to 1 (`relevance_score`).
        case score
    }

    /// The row: the key, the kind, and a text field's slot in `NotificationContent.Fields.texts`.
    private var row: (key: String, kind: Kind, slot: Int?) {
        switch self {
        case .title: ("title", .text, 0)
        case .subtitle: ("subtitle", .text, 1)
        case .body: ("body", .text, 2)
        case .sound: ("sound", .text, 3)
        case .badge: ("badge", .integer, nil)
        case .threadID: ("thread_id", .text, 4)
        case .category: ("category", .text, 5)
        case .interruptionLevel: ("interruption_level", .level, 6)
        case .relevanceScore: ("relevance_score", .score, nil)
        case .targetContentID: ("target_content_id", .text, 7)
        case .filterCriteria: ("filter_criteria", .text, 8)
        }
    }
    /// The key everywhere but in APNs bodies: route `alert:`, `set`, the extension wire,
    /// the display JSON and expressions' `content`.
    package var key: String { row.key }
    /// What the field holds.
    package var kind: Kind { row.kind }
    /// The key in an APNs body (`thread-id`); title, subtitle and body live in `aps.alert`.
    var apsKey: String { String(key.map { $0 == "_" ? "-" : $0 }) }
    /// `true` for the fields of `aps.alert`.
    var inAlert: Bool { self == .title || self == .subtitle || self == .body }
    /// Where a `.text` or `.level` field is stored; `nil` for `badge` and `relevance_score`.
    var slot: Int? { row.slot }

    /// The field named `key`, or `nil`.
    init?(key: String) {
        guard let field = Self.allCases.first(where: { $0.key == key }) else { return nil }
        self = field
    }

    /// The field's value in `content`: text as a string, `badge` an `int`,
    /// `relevance_score` a `double`; `nil` when absent.
    package func value(in content: NotificationContent) -> JSONValue? {
        if slot != nil { return content[text: self].map(JSONValue.string) }
        if self == .badge { return content.badge.map { .int(Int64($0)) } }
        return content.relevanceScore.map(JSONValue.double)
    }

    /// Sets the field to `value`, a value of its kind already checked (`nil` removes it).
    package func set(_ value: JSONValue?, in content: inout NotificationContent) {
        if slot != nil {
            content[text: self] = value?.stringValue
        } else if self == .badge {
            content.badge = value?.exactInteger.flatMap { Int(exactly: $0) }
        } else {
            content.relevanceScore = value?.numberValue
        }
    }
}

extension NotificationContent {
    /// The content as expressions see it (`content.title`, …); absent fields are left out.
    var jsonValue: JSONValue {
        var o: JSONObject = [:]
        for field in ContentField.allCases {
            if let value = field.value(in: self) { o[field.key] = value }
        }
        o["user_info"] = userInfo
        if !attachments.isEmpty { o["attachments"] = attachmentsValue }
        return .object(o)
    }

    /// `content.attachments`: a list of `{identifier, type, size, url}` (empty without any).
    var attachmentsValue: JSONValue {
        .array(attachments.map(\.jsonValue))
    }
}
