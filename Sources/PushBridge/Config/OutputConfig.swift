/// One entry of `outputs:`: a service that receives the delivered alerts (and condition
/// withdraws) besides the display topic.
package struct OutputConfig: Sendable, Equatable {
    /// Unique among the outputs; names it in logs, the stats and dead letters.
    package var name: String
    /// The routes whose alerts it receives; `nil`: every route.
    package var routes: [String]? = nil
    /// The whole HTTP exchange, connection included.
    package var timeout: Duration = .seconds(10)
    /// Server verification: an extra CA file, or none at all (`insecure`).
    package var tls = OutputTLSConfig()
    /// Requests in flight at once.
    var concurrency = 4
    /// What kind of service it is.
    package var kind: OutputKindConfig
    /// Another output that also gets a delivery this one has not had accepted within
    /// `fallbackAfter` (once per delivery); `nil`: none.
    var fallback: String? = nil
    /// How long a delivery may wait for its acceptance before it is handed to `fallback`.
    var fallbackAfter: Duration = .seconds(300)
    /// Where `fallback` is written (for the checks across outputs).
    var fallbackMark: YAMLMark? = nil
    /// How many deliveries a day this output may make; `nil`: no limit.
    var budget: OutputBudgetConfig? = nil

    package static func == (a: OutputConfig, b: OutputConfig) -> Bool {
        a.name == b.name && a.routes == b.routes && a.timeout == b.timeout && a.tls == b.tls && a.concurrency == b.concurrency
            && a.kind == b.kind && a.fallback == b.fallback && a.fallbackAfter == b.fallbackAfter && a.budget == b.budget
    }
}

/// `budget:` of an output: deliveries a local calendar day (docs/outputs.md, "Budgets").
struct OutputBudgetConfig: Sendable, Equatable {
    /// Deliveries a day; from 80 % of it non-critical alerts are digested, from 100 % dropped.
    var perDay: Int

    /// The deliveries already made today from which non-critical alerts are digested: 80 %
    /// of `perDay`, rounded up (with 5: 4, so the 5th alert is the first held).
    var digestFrom: Int { (4 * perDay + 4) / 5 }
}

/// `tls:` of an output: verification is on unless `insecure` is true.
package struct OutputTLSConfig: Sendable, Equatable {
    /// PEM bundle trusted besides the system's CAs; `nil`: the system's only.
    var caFile: String? = nil
    /// Skips the server certificate and host name checks.
    var insecure = false

    init() {}
}

/// The kinds of output (one per entry).
package enum OutputKindConfig: Sendable, Equatable {
    case ntfy(NtfyConfig)
    case webhook(WebhookConfig)
    /// Web Push to the browsers subscribed on the monitoring server's `/subscribe` page.
    case webpush(WebPushConfig)

    /// The config key naming the kind.
    package var key: String {
        switch self {
        case .ntfy: return "ntfy"
        case .webhook: return "webhook"
        case .webpush: return "webpush"
        }
    }
}

/// `ntfy:`: the topic URL and the access token's file.
package struct NtfyConfig: Sendable, Equatable {
    /// `https://host[:port][/prefix]/<topic>`.
    package var url: String
    /// Where the token was read from (`check` shows this, never the token).
    var tokenFile: String? = nil
    /// The token, sent as `Authorization: Bearer`; never printed.
    var token: String? = nil

    init(url: String) { self.url = url }
}

/// `webhook:`: any HTTP endpoint.
package struct WebhookConfig: Sendable, Equatable {
    package var url: String
    /// `POST`, `PUT` or `PATCH`.
    var method = "POST"
    /// Sent with every request, in the order written.
    package var headers: [(name: String, value: String)] = []
    /// Renders the body; it sees the display message as `message`. `nil`: the display JSON.
    package var body: Template? = nil

    init(url: String) { self.url = url }

    package static func == (a: WebhookConfig, b: WebhookConfig) -> Bool {
        a.url == b.url && a.method == b.method && a.body == b.body
            && a.headers.map(\.name) == b.headers.map(\.name) && a.headers.map(\.value) == b.headers.map(\.value)
    }
}
