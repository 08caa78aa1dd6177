import Foundation

/// Turns one broker message into a notification request for its route (SPEC sections 2 and 4).
public struct RequestMapper: Sendable {
    /// The result of mapping: the context expressions see, and the request or why it was rejected.
    public struct Mapped: Sendable {
        public var context: MessageContext
        public var request: Result<NotificationRequest, Rejection>
    }

    public init() {}

    /// Maps `message` with `route`. `id` is the UUID fixed when the message arrived
    /// (used unless the source gives an `apns-id`).
    public func map(_ message: InboundMessage, route: RouteConfig, id: String, now: Double) -> Mapped {
        map(message, entry: RouteTable.Entry(route), id: id, now: now)
    }

    /// As above, with the route read in place from the table's shared entry (no copy).
    func map(_ message: InboundMessage, entry: RouteTable.Entry, id: String, now: Double) -> Mapped {
        var properties: [String: String] = [:]
        for p in message.userProperties { properties[p.name] = p.value }
        let payload: JSONValue
        switch entry.route.input {
        case .text:
            payload = .string(String(decoding: message.payload, as: UTF8.self))
        case .json, .apns:
            payload = (try? JSONValue.parse(message.payload)) ?? .string(String(decoding: message.payload, as: UTF8.self))
        }
        // `raw` is decoded from the payload bytes only if something reads it.
        var context = MessageContext(topic: message.topic, payload: payload, rawBytes: message.payload,
                                     properties: properties, route: entry.route.name, qos: message.qos,
                                     retain: message.retain, pushType: entry.route.pushType,
                                     priority: entry.route.effectivePriority, now: now, timeZone: nil)
        do throws(Rejection) {
            let request = try build(message, entry: entry, id: id, context: &context)
            try request.validate()
            return Mapped(context: context, request: .success(request))
        } catch {
            return Mapped(context: context, request: .failure(error))
        }
    }

    private func build(_ message: InboundMessage, entry: RouteTable.Entry, id: String,
                       context: inout MessageContext) throws(Rejection) -> NotificationRequest {
        // An empty payload is the empty text for json and text routes (Zigbee2MQTT clears a
        // retained topic with one); only an APNs body can be empty (SPEC section 4).
        if message.payload.isEmpty && entry.route.input == .apns {
            throw Rejection(.payloadEmpty, "the message payload is empty")
        }
        var request = NotificationRequest(id: id, pushType: entry.route.pushType, priority: entry.route.effectivePriority)
        if entry.route.input == .apns {
            if case .string = context.payload {
                throw Rejection(.invalidPayload, "input 'apns' needs a JSON APNs body, got text")
            }
            let parsed = try APNsBodyReader.read(context.payload)
            request.content = parsed.content
            request.mutableContent = parsed.mutableContent
            request.contentAvailable = parsed.contentAvailable
            try applyHeaderProperties(context.properties, entry: entry, to: &request)
        } else {
            request.content = try renderContent(entry, context)
            request.mutableContent = entry.route.mutableContent
            request.contentAvailable = entry.route.pushType == .background
        }
        context.pushType = request.pushType
        context.priority = request.priority
        context.content = request.content
        if request.collapseID == nil, let t = entry.route.collapseID {
            let s = t.render(in: context)
            request.collapseID = s.isEmpty ? nil : s
        }
        if request.expiration == nil, let spec = entry.route.expiration {
            switch spec {
            case .after(let d):
                request.expiration = Int64(message.receivedAt.rounded(.down)) + d.components.seconds
            case .template(let t):
                let v = t.value(in: context)
                guard let e = Self.integer(v) else {
                    throw Rejection(.badExpirationDate, "expiration template gave \(Self.describe(v)), not UNIX seconds")
                }
                request.expiration = e
            }
        }
        return request
    }

    /// Route values are defaults; `apns-*` user properties override them.
    private func applyHeaderProperties(_ p: [String: String], entry: RouteTable.Entry,
                                       to request: inout NotificationRequest) throws(Rejection) {
        if let t = p["apns-push-type"] {
            guard let type = PushType(rawValue: t) else {
                throw Rejection(.invalidPushType, "apns-push-type \"\(t)\" is not a push type")
            }
            request.pushType = type
            if entry.route.priority == nil { request.priority = type == .background ? 5 : 10 }
        } else if !entry.route.pushTypeExplicit {
            // `input: apns` without the property, on a route that does not write
            // `push_type`, is the legacy case (push type absent). A route that writes it
            // supplies it (Home Assistant's mqtt.publish cannot send user properties).
            request.pushType = nil
        }
        if let v = p["apns-priority"] {
            guard let n = Int(v) else { throw Rejection(.badPriority, "apns-priority \"\(v)\" is not a number") }
            request.priority = n
        }
        if let v = p["apns-collapse-id"] { request.collapseID = v }
        if let v = p["apns-expiration"] {
            guard let n = Int64(v) else {
                throw Rejection(.badExpirationDate, "apns-expiration \"\(v)\" is not UNIX seconds")
            }
            request.expiration = n
        }
        if let v = p["apns-id"] {
            let lower = v.lowercased()
            guard NotificationRequest.isValidID(lower) else {
                throw Rejection(.badMessageId, "apns-id \"\(v)\" is not an 8-4-4-4-12 UUID")
            }
            request.id = lower
        }
    }

    private func renderContent(_ entry: RouteTable.Entry, _ context: MessageContext) throws(Rejection) -> NotificationContent {
        var c = NotificationContent()
        // Templates are read in place from the route (no copy of `alert` or of a template).
        func text(_ t: borrowing Template?) -> String? {
            switch t {
            case .none: return nil
            case .some(let t):
                let s = t.render(in: context)
                return s.isEmpty ? nil : s
            }
        }
        c.title = text(entry.route.alert.title)
        c.subtitle = text(entry.route.alert.subtitle)
        c.body = text(entry.route.alert.body)
        c.sound = text(entry.route.alert.sound)
        if c.sound != nil {
            c.soundCritical = entry.route.alert.soundCritical
            c.soundVolume = entry.route.alert.soundVolume
        }
        c.threadID = text(entry.route.alert.threadID)
        c.category = text(entry.route.alert.category)
        c.targetContentID = text(entry.route.alert.targetContentID)
        c.filterCriteria = text(entry.route.alert.filterCriteria)
        if let t = entry.route.alert.badge {
            let v = t.value(in: context)
            if !Self.isBlank(v) {
                guard let n = Self.integer(v), let b = Int(exactly: n) else {
                    throw Rejection(.templateError, "badge template gave \(Self.describe(v)), not an integer")
                }
                c.badge = b
            }
        }
        if let level = text(entry.route.alert.interruptionLevel) {
            guard InterruptionLevel(rawValue: level) != nil else {
                throw Rejection(.templateError, "interruption_level template gave \"\(level)\"; expected passive, active, time-sensitive or critical")
            }
            c.interruptionLevel = level
        }
        if let t = entry.route.alert.relevanceScore {
            let v = t.value(in: context)
            if !Self.isBlank(v) {
                guard let d = Self.number(v), d >= 0, d <= 1 else {
                    throw Rejection(.templateError, "relevance_score template gave \(Self.describe(v)), not a number from 0 to 1")
                }
                c.relevanceScore = d
            }
        }
        let info = entry.route.userInfo?.value(in: context) ?? context.payload
        switch info {
        case .null: c.userInfo = .object([:])
        case .object: c.userInfo = info
        default: c.userInfo = .object(["payload": info])
        }
        return c
    }

    static func isBlank(_ v: JSONValue) -> Bool {
        switch v {
        case .null: return true
        case .string(let s): return s.trimmingCharacters(in: .whitespaces).isEmpty
        default: return false
        }
    }

    /// An integer from a number or a numeric string.
    static func integer(_ v: JSONValue) -> Int64? {
        switch v {
        case .int(let n): return n
        case .double(let d) where d.rounded() == d && abs(d) < 9.2e18: return Int64(d)
        case .string(let s): return Int64(s.trimmingCharacters(in: .whitespaces))
        default: return nil
        }
    }

    /// A number from a number or a numeric string.
    static func number(_ v: JSONValue) -> Double? {
        switch v {
        case .int(let n): return Double(n)
        case .double(let d): return d
        case .string(let s): return Double(s.trimmingCharacters(in: .whitespaces))
        default: return nil
        }
    }

    static func describe(_ v: JSONValue) -> String {
        let text = v.jsonText
        return text.count > 40 ? String(text.prefix(40)) + "…" : text
    }
}
