import Foundation

/// Any HTTP endpoint: the configured method, headers and body, the body a template that sees
/// the item's JSON as `message` (by default the JSON itself: the display message, or the
/// withdraw).
final class WebhookOutput: OutputKind {
    let kindName = "webhook"
    let config: WebhookConfig
    private let hasContentType: Bool

    init(config: WebhookConfig) {
        self.config = config
        hasContentType = config.headers.contains { $0.name.lowercased() == "content-type" }
    }

    func request(for message: OutputMessage, target: String) -> ServiceRequest? {
        var headers = config.headers
        let body: [UInt8]
        if let template = config.body {
            body = Array(template.render(in: WebhookContext(message: message)).utf8)
            if !hasContentType { headers.append(("Content-Type", "text/plain; charset=utf-8")) }
        } else {
            body = message.json
            if !hasContentType { headers.append(("Content-Type", "application/json")) }
        }
        return ServiceRequest(method: config.method, url: config.url, headers: headers, body: body)
    }

    func verdict(for response: ServiceResponse, to request: ServiceRequest, message: OutputMessage,
                 target: String) -> DeliveryVerdict {
        Self.standardVerdict(response, now: Date().timeIntervalSince1970)
    }
}

/// What a webhook's body template sees: `message` (the item's JSON), `route`, `topic` (the
/// source topic), `now`, `hour`, `weekday`; the message-only names are null.
struct WebhookContext: EvaluationContext {
    let message: OutputMessage

    func value(of variable: Variable) -> JSONValue {
        switch variable {
        case .message: return message.value
        case .route: return .string(message.route)
        case .topic: return .string(message.sourceTopic)
        case .now: return .int(Int64(Date().timeIntervalSince1970.rounded(.down)))
        case .hour, .weekday:
            let calendar = Calendar(identifier: .gregorian)
            let date = Date()
            if variable == .hour { return .int(Int64(calendar.component(.hour, from: date))) }
            let weekday = calendar.component(.weekday, from: date)
            return .int(Int64(weekday == 1 ? 7 : weekday - 1))
        default: return .null
        }
    }
}
