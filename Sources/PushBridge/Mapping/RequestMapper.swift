import Foundation

/// Turns one broker message into a notification request for its route, as the route's keys say
/// (docs/configuration.md, "routes"), or into why it is rejected (rule 2 of docs/decisions.md).
struct RequestMapper: Sendable {
    /// The result of mapping: the context expressions see, and the request or why it was rejected.
    package struct Mapped: Sendable {
        package var context: MessageContext
        package var request: Result<NotificationRequest, Rejection>
    }

    /// Where `lookup.*` reads the kept values (`nil`: every lookup is `null`).
    let lookups: LookupStore?
    /// Where `presence.*` and `people_home` are read (`nil` without `people:`: they are `null` and 0).
    let presence: PresenceBoard?

    init(lookups: LookupStore? = nil, presence: PresenceBoard? = nil) {
        self.lookups = lookups
        self.presence = presence
    }

    /// Maps `message` with `route`. `id` is the UUID fixed when the message arrived
    /// (used unless the source gives an `apns-id`).
    package func map(_ message: InboundMessage, route: RouteConfig, id: String, now: Double) -> Mapped {
        map(message, entry: RouteTable.Entry(route), id: id, now: now)
    }

    /// As above, with the route read in place from the table's shared entry (no copy).
    /// `condition` is what `condition.*` reads (a condition's notification; `null` otherwise).
    func map(_ message: InboundMessage, entry: RouteTable.Entry, id: String, now: Double,
             condition: JSONValue = .null, madeByCondition: Bool = false) -> Mapped {
        var properties: [String: String] = [:]
        for p in message.userProperties { properties[p.name] = p.value }
        let payload: JSONValue
        // How long the parsed payload's JSON text can be (`apnsBodySizeBound` reads it when the
        // payload is the `user_info`); `nil` for a text payload.
        var payloadSizeBound: Int?
        switch entry.route.input {
        case .text:
            payload = .string(String(decoding: message.payload, as: UTF8.self))
        case .json, .apns:
            var bound = 0
            if let parsed = try? JSONValue.parse(message.payload, serializedSizeBound: &bound) {
                payload = parsed
                payloadSizeBound = bound
            } else {
                payload = .string(String(decoding: message.payload, as: UTF8.self))
            }
        }
        // `raw` is decoded from the payload bytes only if something reads it.
        var context = MessageContext(topic: message.topic, payload: payload, rawBytes: message.payload,
                                     properties: properties, route: entry.route.name, qos: message.qos,
                                     retain: message.retain, pushType: entry.route.pushType,
                                     priority: entry.route.effectivePriority, now: now, timeZone: nil)
        context.messageID = id
        // Only a route with `lookup:` does this work: the others' messages never touch the store.
        if !entry.route.lookups.isEmpty { context.lookup = lookupValues(entry.route.lookups, in: context) }
        // Only a bridge with `people:` does this work.
        if let presence {
            (context.presence, context.peopleHome) = presence.variables(at: now)
        }
        if case .null = condition {} else {
            context.condition = condition
            context.madeByCondition = madeByCondition
        }
        do throws(Rejection) {
            let request = try build(message, entry: entry, id: id, context: &context, payloadSizeBound: payloadSizeBound)
            try request.validate()
            return Mapped(context: context, request: .success(consume request))
        } catch {
            return Mapped(context: context, request: .failure(error))
        }
    }

    /// `lookup` for one message: each name's kept value of the topic its template renders
    /// (`null` when none is kept).
    private func lookupValues(_ entries: [RouteLookup], in context: MessageContext) -> JSONValue {
        var object = JSONObject()
        for entry in entries {
            object[entry.name] = lookups?.value(of: entry.template.render(in: context)) ?? .null
        }
        return .object(object)
    }

    private func build(_ message: InboundMessage, entry: RouteTable.Entry, id: String,
                       context: inout MessageContext, payloadSizeBound: Int?) throws(Rejection) -> NotificationRequest {
        // An empty payload is the empty text for json and text routes (Zigbee2MQTT clears a
        // retained topic with one); only an empty APNs body is rejected, as PayloadEmpty.
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
            request.content = try renderContent(entry, context, payloadSizeBound: payloadSizeBound)
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
                request.expiration = Int64(message.receivedAt.rounded(.down)) + d.nanoseconds / 1_000_000_000
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

    private func renderContent(_ entry: RouteTable.Entry, _ context: MessageContext,
                               payloadSizeBound: Int?) throws(Rejection) -> NotificationContent {
        // A buffer of its own, filled in place.
        var c = NotificationContent.unshared()
        for field in ContentField.allCases {
            guard let t = entry.route.alert[field] else { continue }
            switch field.kind {
            case .text, .level:
                let text = t.render(in: context)
                if text.isEmpty { continue }
                if field.kind == .level && InterruptionLevel(rawValue: text) == nil {
                    throw Rejection(.templateError, "\(field.key) template gave \"\(text)\"; expected passive, active, time-sensitive or critical")
                }
                field.set(.string(text), in: &c)
            case .integer, .score:
                let v = t.value(in: context)
                if Self.isBlank(v) { continue }
                if field.kind == .integer {
                    guard let n = Self.integer(v), Int(exactly: n) != nil else {
                        throw Rejection(.templateError, "\(field.key) template gave \(Self.describe(v)), not an integer")
                    }
                    field.set(.int(n), in: &c)
                } else {
                    guard let d = Self.number(v), d >= 0, d <= 1 else {
                        throw Rejection(.templateError, "\(field.key) template gave \(Self.describe(v)), not a number from 0 to 1")
                    }
                    field.set(.double(d), in: &c)
                }
            }
        }
        if c.sound != nil {
            c.soundCritical = entry.route.alert.soundCritical
            c.soundVolume = entry.route.alert.soundVolume
        }
        let info = entry.route.userInfo?.value(in: context) ?? context.payload
        switch info {
        case .null: c.userInfo = .object([:])
        case .object:
            c.userInfo = info
            // The payload itself (`user_info` left at its default, `{{ payload }}`): the parse
            // knew how long its text can be.
            if entry.route.userInfo?.isPayload ?? true, let payloadSizeBound { c.userInfoSizeBound = payloadSizeBound }
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

    /// An integer from a number or a string holding an integer (`"3"`, not `"3.0"`).
    static func integer(_ v: JSONValue) -> Int64? {
        if case .string(let s) = v, case .int(let n)? = JSONValue(numberText: s) { return n }
        return v.exactInteger
    }

    /// A number from a number or a numeric string.
    static func number(_ v: JSONValue) -> Double? {
        if case .string(let s) = v { return JSONValue(numberText: s)?.numberValue }
        return v.numberValue
    }

    static func describe(_ v: JSONValue) -> String {
        let text = v.jsonText
        return text.count > 40 ? String(text.prefix(40)) + "…" : text
    }
}
