/// One entry of `outputs:`: a service that receives the delivered alerts (and condition
/// withdraws) besides the display topic.
public struct OutputConfig: Sendable {
    /// Unique among the outputs; names it in logs, the stats and dead letters.
    public var name: String
    /// The routes whose alerts it receives; `nil`: every route.
    public var routes: [String]? = nil
    /// The whole HTTP exchange, connection included.
    public var timeout: Duration = .seconds(10)
    /// Server verification: an extra CA file, or none at all (`insecure`).
    public var tls = OutputTLSConfig()
    /// Requests in flight at once.
    public var concurrency = 4
    /// What kind of service it is.
    public var kind: OutputKindConfig

    public init(name: String, kind: OutputKindConfig) {
        self.name = name
        self.kind = kind
    }
}

/// `tls:` of an output: verification is on unless `insecure` is true.
public struct OutputTLSConfig: Sendable {
    /// PEM bundle trusted besides the system's CAs; `nil`: the system's only.
    public var caFile: String? = nil
    /// Skips the server certificate and host name checks.
    public var insecure = false

    public init() {}
}

/// The kinds of output (one per entry).
public enum OutputKindConfig: Sendable {
    case ntfy(NtfyConfig)
    case webhook(WebhookConfig)
    /// Web Push to the browsers subscribed on the monitoring server's `/subscribe` page.
    case webpush(WebPushConfig)

    /// The config key naming the kind.
    public var key: String {
        switch self {
        case .ntfy: return "ntfy"
        case .webhook: return "webhook"
        case .webpush: return "webpush"
        }
    }
}

/// `ntfy:`: the topic URL and the access token's file.
public struct NtfyConfig: Sendable {
    /// `https://host[:port][/prefix]/<topic>`.
    public var url: String
    /// Where the token was read from (`check` shows this, never the token).
    public var tokenFile: String? = nil
    /// The token, sent as `Authorization: Bearer`; never printed.
    public var token: String? = nil

    public init(url: String) { self.url = url }
}

/// `webhook:`: any HTTP endpoint.
public struct WebhookConfig: Sendable {
    public var url: String
    /// `POST`, `PUT` or `PATCH`.
    public var method = "POST"
    /// Sent with every request, in the order written.
    public var headers: [(name: String, value: String)] = []
    /// Renders the body; it sees the display message as `message`. `nil`: the display JSON.
    public var body: Template? = nil

    public init(url: String) { self.url = url }
}
