import Foundation

/// Everything an expression can see about one message (SPEC section 4 names).
///
/// Built once per message by the mapper; the extension stage updates `content`
/// as filters rewrite it.
public struct MessageContext: EvaluationContext, Sendable {
    public var topic: String
    public var levels: [String]
    /// The payload: parsed JSON for `input: json`/`apns` (text when not JSON), text otherwise.
    public var payload: JSONValue
    /// The payload as text (invalid UTF-8 replaced).
    public var raw: String
    /// MQTT 5 user properties (last value wins for a repeated name).
    public var properties: [String: String]
    public var route: String
    public var qos: Int
    public var retain: Bool
    /// `nil` is the legacy case, seen by expressions as `"none"`.
    public var pushType: PushType?
    public var priority: Int
    public var content: NotificationContent
    /// Evaluation time, UNIX seconds.
    public var now: Double
    /// Time zone used for `hour` and `weekday`.
    public var timeZone: TimeZone

    public init(topic: String, payload: JSONValue, raw: String, properties: [String: String] = [:],
                route: String = "", qos: Int = 0, retain: Bool = false, pushType: PushType? = .alert,
                priority: Int = 10, content: NotificationContent = NotificationContent(),
                now: Double = Date().timeIntervalSince1970, timeZone: TimeZone = .current) {
        self.topic = topic
        self.levels = topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        self.payload = payload
        self.raw = raw
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

    public func value(of variable: Variable) -> JSONValue {
        switch variable {
        case .topic: return .string(topic)
        case .levels: return .array(levels.map { .string($0) })
        case .payload: return payload
        case .raw: return .string(raw)
        case .properties: return .object(properties.mapValues { .string($0) })
        case .route: return .string(route)
        case .qos: return .int(Int64(qos))
        case .retain: return .bool(retain)
        case .pushType: return .string(pushType?.rawValue ?? "none")
        case .priority: return .int(Int64(priority))
        case .content: return content.jsonValue
        case .now: return .int(Int64(now.rounded(.down)))
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
}

extension NotificationContent {
    /// The content as expressions see it (`content.title`, …); absent fields are left out.
    public var jsonValue: JSONValue {
        var o: [String: JSONValue] = [:]
        if let title { o["title"] = .string(title) }
        if let subtitle { o["subtitle"] = .string(subtitle) }
        if let body { o["body"] = .string(body) }
        if let sound { o["sound"] = .string(sound) }
        if let badge { o["badge"] = .int(Int64(badge)) }
        if let threadID { o["thread_id"] = .string(threadID) }
        if let category { o["category"] = .string(category) }
        if let interruptionLevel { o["interruption_level"] = .string(interruptionLevel) }
        if let relevanceScore { o["relevance_score"] = .double(relevanceScore) }
        if let targetContentID { o["target_content_id"] = .string(targetContentID) }
        if let filterCriteria { o["filter_criteria"] = .string(filterCriteria) }
        o["user_info"] = userInfo
        return .object(o)
    }
}
