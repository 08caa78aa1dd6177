/// The typed form of `bridge.yml` (docs/configuration.md), produced by `ConfigLoader`.
///
/// Every field has its documented default (docs/configuration.md, "Key reference"). Templates and
/// expressions are compiled at load time, so a config that loads has no syntax errors left.
public struct BridgeConfig: Sendable {
    package var broker = BrokerConfig()
    /// Granted entitlements, e.g. `com.apple.developer.usernotifications.filtering`.
    var entitlements: [String] = []
    /// Routes in file order; the first matching route wins.
    package var routes: [RouteConfig] = []
    package var `extension` = ExtensionConfig()
    package var display = DisplayConfig()
    var deadLetter: DeadLetterConfig? = nil
    var journal: JournalConfig? = nil
    /// `state:`: where the memory lives (`state.redis`: shared by replicas); `nil` = the journal.
    var state: StateConfig? = nil
    /// `monitoring:`: status and stats topics, logs, the HTTP endpoint.
    public var monitoring = MonitoringConfig()
    /// `partition:`: this replica's share of the topics (docs/operations.md, "Scaling out"); `nil` = all topics.
    package var partition: PartitionConfig? = nil
    /// What the loader warns about (positioned; `check` prints them, `run` logs them).
    public var warnings: [ConfigWarning] = []
    /// `homeassistant:`: MQTT discovery for Home Assistant; `nil` = off.
    var homeAssistant: HomeAssistantConfig? = nil
    /// `outputs:`: services that receive the delivered alerts besides the display topic.
    package var outputs: [OutputConfig] = []
    /// The alert lifecycle's shared settings (`conditions:`), when set.
    package var conditions: ConditionsConfig? = nil
    /// The top-level `attachments:` settings (their defaults when the file has none).
    var attachments = AttachmentsConfig()
    /// `people:`: who the outputs reach and where their presence comes from (docs/people.md).
    var people: [PersonConfig] = []
    /// The file this config was read from, for messages.
    package var sourcePath: String = "bridge.yml"

    /// The entitlement that lets an extension suppress a notification.
    static let filteringEntitlement = "com.apple.developer.usernotifications.filtering"

    /// `true` when the filtering entitlement is granted.
    var filteringGranted: Bool { entitlements.contains(Self.filteringEntitlement) }

    package init() {}
}

/// `broker:` section.
package struct BrokerConfig: Sendable, Equatable {
    package var host = "localhost"
    /// `nil` means the default: 1883, or 8883 when `tls` is set.
    var port: Int? = nil
    package var clientID = "pushbridge"
    var protocolVersion: MQTTProtocolVersion = .v5
    var keepalive: Duration = .seconds(30)
    package var cleanStart = false
    package var sessionExpiry: Duration = .seconds(86_400)
    var username: String? = nil
    /// The password, from `password:` or the first line of `password_file:`.
    var password: String? = nil
    var passwordFile: String? = nil
    package var tls: TLSConfig? = nil
    var reconnectMin: Duration = .seconds(1)
    var reconnectMax: Duration = .seconds(30)

    /// The port actually used.
    var effectivePort: Int { port ?? (tls == nil ? 1883 : 8883) }
    /// `host` and the port used, as every message prints them (an IPv6 host in brackets).
    package var address: HostPort { HostPort(host: host, port: effectivePort) }
    init() {}
}

/// How a route reads the payload.
enum InputMode: String, Sendable, CaseIterable {
    case json, text, apns
}

/// The `alert:` templates of a route, one per `ContentField`.
struct AlertTemplates: Sendable {
    /// By `ContentField.rawValue`; `nil` where the route writes none.
    private var templates = [Template?](repeating: nil, count: ContentField.allCases.count)
    /// `alert.sound: {critical: true}`: Apple's critical-alert sound.
    var soundCritical = false
    /// `alert.sound: {volume: 0.8}`: the critical sound's volume, 0…1.
    var soundVolume: Double? = nil
    init() {}

    /// The template of `field` (the sound's is its name, also when written as a mapping).
    subscript(field: ContentField) -> Template? {
        get { templates[field.rawValue] }
        set { templates[field.rawValue] = newValue }
    }
}

/// When a request expires.
enum ExpirationSpec: Sendable {
    /// A fixed duration after the message arrived.
    case after(Duration)
    /// A template that yields absolute UNIX seconds.
    case template(Template)
}

/// What a route does with a message that arrives with the retain flag (docs/decisions.md, "Retained state").
enum RetainedPolicy: String, Sendable, CaseIterable {
    /// Stored state, not news: counted `not_displayed`, teaches `changed` filters its value.
    case skip
    /// Decided like any live message.
    case deliver
}

/// One entry of `routes:`.
package struct RouteConfig: Sendable {
    package var name: String
    /// The MQTT topic filter (validated).
    package var topic: String
    package var qos: Int = 1
    package var share: String? = nil
    /// `retained: skip | deliver`.
    var retained: RetainedPolicy = .skip
    var input: InputMode = .json
    /// The push type; `nil` is `push_type: none` (the legacy, absent case).
    var pushType: PushType? = .alert
    /// `true` when the file writes `push_type` (for `input: apns` it is then the default
    /// where a message has no `apns-push-type` property; otherwise the push type is absent).
    var pushTypeExplicit = false
    /// `nil` means the default: 10, or 5 for `background`.
    var priority: Int? = nil
    var mutableContent = true
    var collapseID: Template? = nil
    var expiration: ExpirationSpec? = nil
    var alert = AlertTemplates()
    /// What becomes `userInfo`; defaults to `{{ payload }}`.
    package var userInfo: Template? = nil
    /// Alerts that raise, repeat, escalate, are acknowledged and clear; `nil`: each message is an event.
    var condition: ConditionConfig? = nil
    /// `digest:`: a storm of the route's alerts becomes one notification; `nil`: none.
    var digest: DigestConfig? = nil
    /// `attachments:`: what is attached to the route's alerts, in order.
    var attachments: [AttachmentSpec] = []
    /// `lookup:`: names whose `lookup.<name>` reads the kept payload of the topic each renders.
    var lookups: [RouteLookup] = []
    /// `continue: true`: a message this route decides also goes on to the next route (in file
    /// order) whose filter matches its topic, which decides it too.
    var continueMatching = false
    /// `audience:`: whose person-owned outputs get the route's alerts (docs/people.md).
    var audience: Audience = .everyone
    /// `when_nobody:`: what an alert of an empty `home`/`away` audience does.
    var whenNobody: WhenNobody = .everyone
    /// The names of an `audience` list as written (checked against `people:`).
    var audienceRefs: [YAMLScalar] = []
    /// Where `audience` is written.
    var audienceMark: YAMLMark? = nil
    /// Where `condition:` is written (for warnings made after the route is read).
    var conditionMark: YAMLMark? = nil
    /// Where the route was declared, for messages (`bridge.yml:12:5`).
    var location: String = ""

    /// The priority actually used when the route does not say.
    var effectivePriority: Int { priority ?? (pushType == .background ? 5 : 10) }
}

/// What happens when the extension fails.
enum FailurePolicy: String, Sendable, CaseIterable {
    case deliver, drop
}

/// `extension:` section.
package struct ExtensionConfig: Sendable {
    var timeLimit: Duration = .seconds(30)
    var expireGrace: Duration = .seconds(1)
    var concurrency = 256
    var onFailure: FailurePolicy = .deliver
    package var filters: [FilterConfig] = []
    /// argv of the external extension process.
    package var command: [String]? = nil
    init() {}
}

/// One declarative filter of `extension.filters`.
package struct FilterConfig: Sendable {
    /// The filter's name: `name:`, or `<action>#<position>` (1-based) when unnamed.
    package var name: String
    var when: Expression? = nil
    /// Route names this filter applies to; `nil` = all.
    package var routes: [String]? = nil
    var action: FilterAction
    /// Most keys a `dedupe`, `rate_limit` or `changed` filter remembers (`max_keys:`).
    var maxKeys = FilterConfig.defaultMaxKeys
    /// The filter as written (every key but `name`, after `${…}` substitution), so a
    /// reload or a restart can tell an unchanged filter, whose memory it keeps.
    var definition: String = ""

    /// The bound on remembered keys when `max_keys` is not given.
    static let defaultMaxKeys = 10_000

    /// What identifies this filter's memory across reloads and restarts: its name (for an
    /// unnamed filter that is its position) and its definition.
    var memoryIdentity: String { name + "\u{1F}" + definition }

    /// `true` for the filters that remember keys (`dedupe`, `rate_limit`, `changed`).
    var hasMemory: Bool { action.kind.remembers }
}

/// Format of the display message.
package enum DisplayFormat: String, Sendable, CaseIterable {
    case json, apns, text
}

/// `display:` section.
package struct DisplayConfig: Sendable {
    package var topic: Template = try! Template.parse("display/{{ topic }}")
    package var qos = 1
    package var retain = false
    package var format: DisplayFormat = .json
    init() {}
}

/// `dead_letter:` section.
struct DeadLetterConfig: Sendable {
    package var topic: Template
    package var qos = 1
    init(topic: Template) { self.topic = topic }
}

/// When the journal calls fsync.
enum FsyncPolicy: String, Sendable, CaseIterable {
    case always, interval, never
}

/// `journal:` section.
struct JournalConfig: Sendable, Equatable {
    package var path = "/var/lib/pushbridge/journal"
    var fsync: FsyncPolicy = .interval
    /// Most messages kept before intake stops (backpressure).
    var maxMessages = 100_000
    init() {}
}

/// `monitoring:` section. Equatable as a whole: a reload that changes any of it warns that
/// it needs a restart (`Bridge.apply(_:)`).
public struct MonitoringConfig: Sendable, Equatable {
    var statusTopic: String? = "pushbridge/status"
    package var statsTopic: String? = "pushbridge/stats"
    package var interval: Duration = .seconds(10)
    var maxTopics = 1000
    /// `http`: the HTTP endpoint's address, parsed when the config is read; `nil` = off.
    package var http: HostPort? = nil
    /// `tls`: serve `http` over TLS with this certificate and key; `nil` = plain HTTP.
    package var tls: MonitoringTLSConfig? = nil
    /// `http_auth`: who may use `http`; `nil` when not written (allowed on loopback only).
    /// A reload applies a changed one to the running server when `http` is unchanged.
    package var httpAuth: HTTPAuthConfig? = nil
    /// `trace_topic`: every decision object published there (QoS 0, not retained); `nil` = off.
    var traceTopic: String? = nil
    /// `log_level`: the least severe level logged.
    public var logLevel: LogLevel = .info
    /// `log_format`: `text` or `json` lines.
    public var logFormat: LogFormat = .text
    init() {}
}
