/// One entity announced to Home Assistant: its retained discovery config.
struct DiscoveryEntity: Sendable, Equatable {
    /// Home Assistant's platform: `sensor`, `binary_sensor`, `event` or `notify`.
    package var component: String
    /// The object id in the discovery topic, also the entity id after the domain
    /// (`sensor.<objectID>`): `<node>_<route>_<what>` or `<node>_<what>`.
    var objectID: String
    /// The route the entity belongs to; `nil` for the bridge's own entities.
    package var route: String?
    /// `<discovery_prefix>/<component>/<node>/<objectID>/config`.
    package var topic: String
    /// The discovery config (device, origin, availability and the platform's keys).
    package var config: JSONValue

    /// The config as sent: compact JSON with sorted keys.
    package var payload: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(768)
        config.write(into: &bytes)
        return bytes
    }
}

/// The counters each route has a sensor for, read from the stats topic's `routes` object.
enum RouteCounter: String, CaseIterable, Sendable {
    case received, delivered, suppressed, rejected

    var icon: String {
        switch self {
        case .received: "mdi:message-arrow-left"
        case .delivered: "mdi:message-check"
        case .suppressed: "mdi:message-minus"
        case .rejected: "mdi:message-alert"
        }
    }
}

/// Text for Home Assistant templates.
enum JinjaText {
    /// `text` as a single-quoted Jinja string literal: `'` and `\` escaped, braces and
    /// anything outside printable ASCII as `\uXXXX` / `\UXXXXXXXX` (Jinja decodes these).
    static func literal(_ text: String) -> String {
        var out = "'"
        for scalar in text.unicodeScalars {
            switch scalar {
            case "'": out += "\\'"
            case "\\": out += "\\\\"
            // Jinja's lexer ends an expression at `}}` even inside a string literal.
            case "{", "}": out += scalar == "{" ? "\\u007b" : "\\u007d"
            case " "..."~": out.unicodeScalars.append(scalar)
            default:
                let hex = String(scalar.value, radix: 16)
                if scalar.value <= 0xFFFF {
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out += "\\U" + String(repeating: "0", count: 8 - hex.count) + hex
                }
            }
        }
        return out + "'"
    }
}
