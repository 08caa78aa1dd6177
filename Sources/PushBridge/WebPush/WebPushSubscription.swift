/// One browser's push subscription (the `PushSubscription` JSON of the Push API): where to
/// send, and the keys to encrypt for.
package struct WebPushSubscription: Sendable, Hashable {
    /// The push service URL for this browser (http or https); the subscription's identity.
    let endpoint: String
    /// The user agent's P-256 public key, uncompressed point (65 bytes).
    let p256dh: [UInt8]
    /// The authentication secret (16 bytes).
    let auth: [UInt8]
    /// When the subscription ends (milliseconds since 1970), when the browser gave one.
    let expirationTime: Int64?
    /// The person (of `people:`) the subscription belongs to, when the page gave one: it then
    /// gets only the alerts whose audience holds that person (docs/people.md).
    var person: String? = nil

    /// Longest endpoint accepted (push services' URLs are a few hundred bytes).
    static let maximumEndpointLength = 2048

    /// The subscription in `json` (`PushSubscription.toJSON()`: `endpoint`, `expirationTime`,
    /// `keys.p256dh`, `keys.auth`), or why it is not one.
    package static func parse(_ json: [UInt8]) -> Result<WebPushSubscription, SubscriptionProblem> {
        let value: JSONValue
        do { value = try JSONValue.parse(json) } catch {
            return .failure(SubscriptionProblem("the body is not JSON: \(error.message)"))
        }
        guard case .object = value else { return .failure(SubscriptionProblem("the body must be a JSON object")) }
        guard let endpoint = value["endpoint"]?.stringValue else {
            return .failure(SubscriptionProblem("'endpoint' must be a string"))
        }
        if let problem = endpointProblem(endpoint) { return .failure(SubscriptionProblem(problem)) }
        var expiration: Int64?
        switch value["expirationTime"] {
        case nil, .null?: expiration = nil
        case .int(let ms)?: expiration = ms
        case .double(let ms)? where ms.isFinite && abs(ms) < 9e15: expiration = Int64(ms)
        default: return .failure(SubscriptionProblem("'expirationTime' must be a number or null"))
        }
        guard let keys = value["keys"], case .object = keys else {
            return .failure(SubscriptionProblem("'keys' must be an object with 'p256dh' and 'auth'"))
        }
        guard let p256dh = keys["p256dh"]?.stringValue.flatMap(Base64URL.decode), p256dh.count == 65, p256dh[0] == 0x04 else {
            return .failure(SubscriptionProblem("'keys.p256dh' must be base64url of a 65-byte uncompressed P-256 point"))
        }
        guard (try? P256Key.publicKey(point: p256dh)) != nil else {
            return .failure(SubscriptionProblem("'keys.p256dh' is not a point on P-256"))
        }
        guard let auth = keys["auth"]?.stringValue.flatMap(Base64URL.decode), auth.count == 16 else {
            return .failure(SubscriptionProblem("'keys.auth' must be base64url of 16 bytes"))
        }
        var person: String?
        switch value["person"] {
        case nil, .null?: person = nil
        case .string(let name)? where name.isEmpty: person = nil
        case .string(let name)?: person = name
        default: return .failure(SubscriptionProblem("'person' must be a person's name (a string) or null"))
        }
        return .success(WebPushSubscription(endpoint: endpoint, p256dh: p256dh, auth: auth, expirationTime: expiration, person: person))
    }

    /// Why `endpoint` is not a usable push endpoint, or `nil`.
    static func endpointProblem(_ endpoint: String) -> String? {
        if endpoint.utf8.count > maximumEndpointLength { return "'endpoint' is longer than \(maximumEndpointLength) bytes" }
        if endpoint.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } ?? false }) {
            return "'endpoint' must not contain spaces or control characters"
        }
        if VAPIDKey.origin(of: endpoint) == nil { return "'endpoint' must be an http or https URL with a host" }
        return nil
    }

    /// The subscription as the Push API writes it (keys base64url, no padding).
    package var json: [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.add("endpoint", endpoint)
        w.key("expirationTime")
        if let expirationTime { w.value(.int(expirationTime)) } else { w.null() }
        w.key("keys")
        w.beginObject()
        w.add("p256dh", Base64URL.encode(p256dh))
        w.add("auth", Base64URL.encode(auth))
        w.endObject()
        if let person { w.add("person", person) }
        w.endObject()
        return w.bytes
    }
}

/// Why a body is not a push subscription (the words go back to the page in a 400 answer).
package struct SubscriptionProblem: Error, Equatable, CustomStringConvertible {
    /// What is wrong.
    package let description: String
    init(_ description: String) { self.description = description }
}
