import Foundation

/// Everything an expression can see about one message (the names of docs/configuration.md,
/// "Templates and expressions").
///
/// Built once per message by the mapper; the extension stage updates `content`
/// as filters rewrite it. The fields live in one shared buffer that is copied on the
/// first write to a shared value, so handing the context from the mapper to the filters,
/// the extension stage and the renderer costs one reference count per hand-over.
package struct MessageContext: EvaluationContext, Sendable {
    /// The fields. `@unchecked Sendable`: a buffer is only written while uniquely
    /// referenced (copy on write), so a buffer shared between threads is never mutated.
    private final class Storage: @unchecked Sendable {
        var topic: String
        var payload: JSONValue
        /// `nil`: decoded from `rawBytes` when read.
        var raw: String?
        var rawBytes: [UInt8]
        var properties: [String: String]
        var route: String
        var qos: Int
        var retain: Bool
        var pushType: PushType?
        var priority: Int
        var content: NotificationContent
        var now: Double
        /// `nil`: the system zone, resolved only when `hour` or `weekday` is read.
        var timeZone: TimeZone?
        /// `condition.*` for a condition's notification; `null` otherwise.
        var condition: JSONValue = .null
        /// `lookup.*`: the route's kept values by name; `null` for a route without `lookup:`.
        var lookup: JSONValue = .null
        /// `digest.*` for a digest's summary; `null` otherwise.
        var digest: JSONValue = .null
        /// `presence.*` and `people_home` (set only when `people:` is configured).
        var presence: JSONValue = .null
        var peopleHome: Int64 = 0
        /// A notification the condition made (repeat, step, all-clear), not an input message.
        var madeByCondition = false
        /// The id the message was admitted under (its journal id; a replay has the same).
        var messageID = ""

        init(topic: String, payload: JSONValue, raw: String?, rawBytes: [UInt8], properties: [String: String],
             route: String, qos: Int, retain: Bool, pushType: PushType?, priority: Int,
             content: NotificationContent, now: Double, timeZone: TimeZone?) {
            self.topic = topic
            self.payload = payload
            self.raw = raw
            self.rawBytes = rawBytes
            self.properties = properties
            self.route = route
            self.qos = qos
            self.retain = retain
            self.pushType = pushType
            self.priority = priority
            self.content = content
            self.now = now
            self.timeZone = timeZone
        }

        func copy() -> Storage {
            let s = Storage(topic: topic, payload: payload, raw: raw, rawBytes: rawBytes, properties: properties,
                            route: route, qos: qos, retain: retain, pushType: pushType, priority: priority,
                            content: content, now: now, timeZone: timeZone)
            s.condition = condition
            s.lookup = lookup
            s.digest = digest
            s.presence = presence
            s.peopleHome = peopleHome
            s.madeByCondition = madeByCondition
            s.messageID = messageID
            return s
        }
    }

    private var storage: Storage

    /// The buffer, made unique first (copy on write).
    private mutating func uniqueStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    package var topic: String { get { storage.topic } set { uniqueStorage().topic = newValue } }
    /// The topic's levels (split at `/`, empty levels kept), computed when read.
    var levels: [String] {
        topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    }
    /// The payload: parsed JSON for `input: json`/`apns` (text when not JSON), text otherwise.
    package var payload: JSONValue { get { storage.payload } set { uniqueStorage().payload = newValue } }
    /// The payload as text (invalid UTF-8 replaced).
    package var raw: String {
        get { storage.raw ?? String(decoding: storage.rawBytes, as: UTF8.self) }
        set {
            let s = uniqueStorage()
            s.raw = newValue
            s.rawBytes = []
        }
    }
    /// MQTT 5 user properties (last value wins for a repeated name).
    package var properties: [String: String] { get { storage.properties } set { uniqueStorage().properties = newValue } }
    package var route: String { get { storage.route } set { uniqueStorage().route = newValue } }
    package var qos: Int { get { storage.qos } set { uniqueStorage().qos = newValue } }
    package var retain: Bool { get { storage.retain } set { uniqueStorage().retain = newValue } }
    /// `nil` is the legacy case, seen by expressions as `"none"`.
    var pushType: PushType? { get { storage.pushType } set { uniqueStorage().pushType = newValue } }
    var priority: Int { get { storage.priority } set { uniqueStorage().priority = newValue } }
    /// The content as the filters left it. Setting the content already there (the same
    /// value passed along) changes nothing and copies nothing.
    package var content: NotificationContent {
        get { storage.content }
        set {
            if newValue.isIdentical(to: storage.content) { return }
            uniqueStorage().content = newValue
        }
    }
    /// Evaluation time, UNIX seconds.
    package var now: Double { get { storage.now } set { uniqueStorage().now = newValue } }
    /// `condition` as expressions see it (`state`, `alert_id`, `raised_at`, `repeat`, `step`).
    var condition: JSONValue { get { storage.condition } set { uniqueStorage().condition = newValue } }
    /// `lookup` as expressions see it: an object of the route's lookup names (`null` without any).
    var lookup: JSONValue { get { storage.lookup } set { uniqueStorage().lookup = newValue } }
    /// `digest` as templates see it: the held alerts a digest's summary stands for (`null` elsewhere).
    var digest: JSONValue { get { storage.digest } set { uniqueStorage().digest = newValue } }
    /// `presence` as expressions see it: an object of each person's presence (`null` without people).
    var presence: JSONValue { get { storage.presence } set { uniqueStorage().presence = newValue } }
    /// `people_home`: how many people are home.
    var peopleHome: Int64 { get { storage.peopleHome } set { uniqueStorage().peopleHome = newValue } }
    /// `true` for a repeat, an escalation step or an all-clear: `dedupe`, `rate_limit` and
    /// `changed` see only input messages, never these.
    var madeByCondition: Bool { get { storage.madeByCondition } set { uniqueStorage().madeByCondition = newValue } }
    /// The id the message was admitted under (its journal id; a replay has the same): the
    /// shared filter memory decides a message once per route by it.
    var messageID: String { get { storage.messageID } set { uniqueStorage().messageID = newValue } }
    /// Time zone used for `hour` and `weekday` (the system zone unless one was given).
    package var timeZone: TimeZone {
        get { storage.timeZone ?? SystemTimeZone.current }
        set { uniqueStorage().timeZone = newValue }
    }

    init(topic: String, payload: JSONValue, raw: String, properties: [String: String] = [:],
                route: String = "", qos: Int = 0, retain: Bool = false, pushType: PushType? = .alert,
                priority: Int = 10, content: NotificationContent = NotificationContent(),
                now: Double = Date().timeIntervalSince1970, timeZone: TimeZone? = nil) {
        storage = Storage(topic: topic, payload: payload, raw: raw, rawBytes: [], properties: properties,
                          route: route, qos: qos, retain: retain, pushType: pushType, priority: priority,
                          content: content, now: now, timeZone: timeZone)
    }

    /// As above, with the payload as bytes: `raw` is decoded from them only when read.
    init(topic: String, payload: JSONValue, rawBytes: [UInt8], properties: [String: String],
         route: String, qos: Int, retain: Bool, pushType: PushType?, priority: Int, now: Double,
         timeZone: TimeZone?) {
        storage = Storage(topic: topic, payload: payload, raw: nil, rawBytes: rawBytes, properties: properties,
                          route: route, qos: qos, retain: retain, pushType: pushType, priority: priority,
                          content: NotificationContent(), now: now, timeZone: timeZone)
    }

    package func value(of variable: Variable) -> JSONValue {
        switch variable {
        case .topic: return .string(topic)
        case .levels: return .array(levels.map { .string($0) })
        case .payload: return payload
        case .raw: return .string(raw)
        case .properties: return .object(JSONObject(properties.mapValues { .string($0) }))
        case .route: return .string(route)
        case .qos: return .int(Int64(qos))
        case .retain: return .bool(retain)
        case .pushType: return .string(pushType?.rawValue ?? "none")
        case .priority: return .int(Int64(priority))
        case .content: return content.jsonValue
        case .condition: return condition
        case .lookup: return lookup
        case .digest: return digest
        case .presence: return presence
        case .peopleHome: return .int(peopleHome)
        case .now: return .int(Int64(now.rounded(.down)))
        case .message: return .null
        case .hour, .weekday:
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            let date = Date(timeIntervalSince1970: now)
            if variable == .hour { return .int(Int64(calendar.component(.hour, from: date))) }
            // 1 = Monday … 7 = Sunday (ISO 8601).
            let weekday = calendar.component(.weekday, from: date)  // 1 = Sunday
            return .int(Int64(weekday == 1 ? 7 : weekday - 1))
        }
    }

    /// `payload.name`, `content.name` and `properties.name` read where they are stored (no
    /// copy of the payload, no `content` or `properties` object built for one member).
    package func member(_ name: String, of variable: Variable) -> JSONValue {
        switch variable {
        case .payload:
            if case .object(let object) = storage.payload { return object[name] ?? .null }
            return .null
        case .content:
            // `content` has each field present under its key, and `user_info`.
            if let field = ContentField(key: name) { return field.value(in: storage.content) ?? .null }
            switch name {
            case "user_info": return storage.content.userInfo
            case "attachments": return storage.content.attachmentsValue
            default: return .null
            }
        case .properties:
            return storage.properties[name].map(JSONValue.string) ?? .null
        default:
            return value(of: variable)[name] ?? .null
        }
    }

    /// `levels[position]` found in the topic without building the list.
    package func levelsElement(_ position: JSONValue) -> JSONValue {
        guard let p = position.exactInteger else { return .null }
        let slash = UInt8(ascii: "/")
        func find(_ utf8: UnsafeBufferPointer<UInt8>) -> JSONValue {
            var wanted = p
            if p < 0 {
                var count: Int64 = 1
                for byte in utf8 where byte == slash { count += 1 }
                wanted = count + p
                if wanted < 0 { return .null }
            }
            var start = 0
            var level: Int64 = 0
            while true {
                var end = start
                while end < utf8.count && utf8[end] != slash { end += 1 }
                if level == wanted {
                    return .string(String(decoding: UnsafeBufferPointer(rebasing: utf8[start..<end]), as: UTF8.self))
                }
                if end == utf8.count { return .null }
                start = end + 1
                level += 1
            }
        }
        var topic = storage.topic
        return topic.withUTF8(find)
    }
}

/// The system time zone, looked up once and only when first needed: a bridge whose
/// expressions never read `hour` or `weekday` does not load the zone data (~1.5 MB of ICU
/// pages resident).
enum SystemTimeZone {
    static let current = TimeZone.current
}
