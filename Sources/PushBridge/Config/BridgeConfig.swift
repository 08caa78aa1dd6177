/// The typed form of `bridge.yml` (SPEC section 4), produced by `ConfigLoader`.
///
/// Every field has the default the SPEC documents. Templates and expressions are
/// compiled at load time, so a config that loads has no syntax errors left.
public struct BridgeConfig: Sendable {
    public var broker = BrokerConfig()
    /// Granted entitlements, e.g. `com.apple.developer.usernotifications.filtering`.
    public var entitlements: [String] = []
    /// Routes in file order; the first matching route wins.
    public var routes: [RouteConfig] = []
    public var `extension` = ExtensionConfig()
    public var display = DisplayConfig()
    public var deadLetter: DeadLetterConfig? = nil
    public var journal: JournalConfig? = nil
    public var monitoring = MonitoringConfig()
    /// `partition:`: this replica's share of the topics (SPEC section 10); `nil` = all topics.
    public var partition: PartitionConfig? = nil
    /// What the loader warns about (positioned; `check` prints them, `run` logs them).
    public var warnings: [ConfigWarning] = []
    /// `homeassistant:`; `nil` = off (SPEC section 11).
    public var homeAssistant: HomeAssistantConfig? = nil
    /// `outputs:`: services that receive the delivered alerts besides the display topic.
    public var outputs: [OutputConfig] = []
    /// The alert lifecycle's shared settings (`conditions:`), when set.
    public var conditions: ConditionsConfig? = nil
    /// The file this config was read from, for messages.
    public var sourcePath: String = "bridge.yml"

    /// The entitlement that lets an extension suppress a notification.
    public static let filteringEntitlement = "com.apple.developer.usernotifications.filtering"

    /// `true` when the filtering entitlement is granted.
    public var filteringGranted: Bool { entitlements.contains(Self.filteringEntitlement) }

    public init() {}
}

/// `broker:` section.
public struct BrokerConfig: Sendable {
    public var host = "localhost"
    /// `nil` means the default: 1883, or 8883 when `tls` is set.
    public var port: Int? = nil
    public var clientID = "pushbridge"
    public var protocolVersion: MQTTProtocolVersion = .v5
    public var keepalive: Duration = .seconds(30)
    public var cleanStart = false
    public var sessionExpiry: Duration = .seconds(86_400)
    public var username: String? = nil
    /// The password, from `password:` or the first line of `password_file:`.
    public var password: String? = nil
    public var passwordFile: String? = nil
    public var tls: TLSConfig? = nil
    public var reconnectMin: Duration = .seconds(1)
    public var reconnectMax: Duration = .seconds(30)

    /// The port actually used.
    public var effectivePort: Int { port ?? (tls == nil ? 1883 : 8883) }
    /// `host` and the port used, as every message prints them (an IPv6 host in brackets).
    public var address: HostPort { HostPort(host: host, port: effectivePort) }
    public init() {}
}

/// How a route reads the payload.
public enum InputMode: String, Sendable, CaseIterable {
    case json, text, apns
}

/// The `alert:` templates of a route, one per `ContentField`.
public struct AlertTemplates: Sendable {
    /// By `ContentField.rawValue`; `nil` where the route writes none.
    private var templates = [Template?](repeating: nil, count: ContentField.allCases.count)
    /// `alert.sound: {critical: true}`: Apple's critical-alert sound.
    public var soundCritical = false
    /// `alert.sound: {volume: 0.8}`: the critical sound's volume, 0…1.
    public var soundVolume: Double? = nil
    public init() {}

    /// The template of `field` (the sound's is its name, also when written as a mapping).
    public subscript(field: ContentField) -> Template? {
        get { templates[field.rawValue] }
        set { templates[field.rawValue] = newValue }
    }
}

/// When a request expires.
public enum ExpirationSpec: Sendable {
    /// A fixed duration after the message arrived.
    case after(Duration)
    /// A template that yields absolute UNIX seconds.
    case template(Template)
}

/// What a route does with a message that arrives with the retain flag (SPEC section 2).
public enum RetainedPolicy: String, Sendable, CaseIterable {
    /// Stored state, not news: counted `not_displayed`, teaches `changed` filters its value.
    case skip
    /// Decided like any live message.
    case deliver
}

/// One entry of `routes:`.
public struct RouteConfig: Sendable {
    public var name: String
    /// The MQTT topic filter (validated).
    public var topic: String
    public var qos: Int = 1
    public var share: String? = nil
    /// `retained: skip | deliver`.
    public var retained: RetainedPolicy = .skip
    public var input: InputMode = .json
    /// The push type; `nil` is `push_type: none` (the legacy, absent case).
    public var pushType: PushType? = .alert
    /// `true` when the file writes `push_type` (for `input: apns` it is then the default
    /// where a message has no `apns-push-type` property; otherwise the push type is absent).
    public var pushTypeExplicit = false
    /// `nil` means the default: 10, or 5 for `background`.
    public var priority: Int? = nil
    public var mutableContent = true
    public var collapseID: Template? = nil
    public var expiration: ExpirationSpec? = nil
    public var alert = AlertTemplates()
    /// What becomes `userInfo`; defaults to `{{ payload }}`.
    public var userInfo: Template? = nil
    /// Alerts that raise, repeat, escalate, are acknowledged and clear; `nil`: each message is an event.
    public var condition: ConditionConfig? = nil
    /// `continue: true`: a message this route decides also goes on to the next route (in file
    /// order) whose filter matches its topic, which decides it too.
    public var continueMatching = false
    /// Where `condition:` is written (for warnings made after the route is read).
    var conditionMark: YAMLMark? = nil
    /// Where the route was declared, for messages (`bridge.yml:12:5`).
    public var location: String = ""

    /// The priority actually used when the route does not say.
    public var effectivePriority: Int { priority ?? (pushType == .background ? 5 : 10) }

    public init(name: String, topic: String) {
        self.name = name
        self.topic = topic
    }
}

/// What happens when the extension fails.
public enum FailurePolicy: String, Sendable {
    case deliver, drop
}

/// `extension:` section.
public struct ExtensionConfig: Sendable {
    public var timeLimit: Duration = .seconds(30)
    public var expireGrace: Duration = .seconds(1)
    public var concurrency = 256
    public var onFailure: FailurePolicy = .deliver
    public var filters: [FilterConfig] = []
    /// argv of the external extension process.
    public var command: [String]? = nil
    public init() {}
}

/// One declarative filter of `extension.filters`.
public struct FilterConfig: Sendable {
    /// The filter's name: `name:`, or `<action>#<position>` (1-based) when unnamed.
    public var name: String
    public var when: Expression? = nil
    /// Route names this filter applies to; `nil` = all.
    public var routes: [String]? = nil
    public var action: FilterAction
    /// Most keys a `dedupe`, `rate_limit` or `changed` filter remembers (`max_keys:`).
    public var maxKeys = FilterConfig.defaultMaxKeys
    /// The filter as written (every key but `name`, after `${…}` substitution), so a
    /// reload or a restart can tell an unchanged filter, whose memory it keeps.
    public var definition: String = ""

    /// The bound on remembered keys when `max_keys` is not given.
    public static let defaultMaxKeys = 10_000

    /// What identifies this filter's memory across reloads and restarts: its name (for an
    /// unnamed filter that is its position) and its definition.
    public var memoryIdentity: String { name + "\u{1F}" + definition }

    public init(name: String, action: FilterAction) {
        self.name = name
        self.action = action
    }

    /// `true` for the filters that remember keys (`dedupe`, `rate_limit`, `changed`).
    public var hasMemory: Bool {
        switch action {
        case .dedupe, .rateLimit, .changed: return true
        case .suppress, .set, .quietHours: return false
        }
    }
}

/// What `changed` does with a key it has no value for.
public enum ChangedInitial: String, Sendable, CaseIterable {
    case deliver, suppress
}

/// The one action of a filter.
public enum FilterAction: Sendable {
    /// Hand back empty content when the expression is true.
    case suppress(Expression)
    /// Rewrite content fields: field name (`title`, `subtitle`, `body`, `sound`,
    /// `sound_critical`, `sound_volume`,
    /// `badge`, `thread_id`, `category`, `interruption_level`, `relevance_score`,
    /// `target_content_id`, `filter_criteria`, `user_info`) → template.
    case set([(field: String, value: Template)])
    /// Suppress a repeat of `key` within `window`.
    case dedupe(key: Template, window: Duration)
    /// Let at most `max` per `key` through within `window`.
    case rateLimit(key: Template, max: Int, window: Duration)
    /// Report by exception: suppress when `value` equals the last value recorded for
    /// `key` (numbers: within `deadband`); `initial` decides for a key with no value yet.
    case changed(key: Template, value: Template, deadband: Double, initial: ChangedInitial)
    /// Suppress between `from` and `to` (minutes after midnight) in `timezone`,
    /// unless `unless` is true.
    case quietHours(fromMinute: Int, toMinute: Int, timezone: String?, unless: Expression?)
}

/// Format of the display message.
public enum DisplayFormat: String, Sendable {
    case json, apns, text
}

/// `display:` section.
public struct DisplayConfig: Sendable {
    public var topic: Template = try! Template.parse("display/{{ topic }}")
    public var qos = 1
    public var retain = false
    public var format: DisplayFormat = .json
    public init() {}
}

/// `dead_letter:` section.
public struct DeadLetterConfig: Sendable {
    public var topic: Template
    public var qos = 1
    public init(topic: Template) { self.topic = topic }
}

/// When the journal calls fsync.
public enum FsyncPolicy: String, Sendable {
    case always, interval, never
}

/// `journal:` section.
public struct JournalConfig: Sendable {
    public var path = "/var/lib/pushbridge/journal"
    public var fsync: FsyncPolicy = .interval
    /// Most messages kept before intake stops (backpressure).
    public var maxMessages = 100_000
    public init() {}
}

/// `monitoring:` section. Equatable as a whole: a reload that changes any of it warns that
/// it needs a restart (`Bridge.apply(_:)`).
public struct MonitoringConfig: Sendable, Equatable {
    public var statusTopic: String? = "pushbridge/status"
    public var statsTopic: String? = "pushbridge/stats"
    public var interval: Duration = .seconds(10)
    public var maxTopics = 1000
    /// `http`: the HTTP endpoint's address, parsed when the config is read; `nil` = off.
    public var http: HostPort? = nil
    /// `tls`: serve `http` over TLS with this certificate and key; `nil` = plain HTTP.
    public var tls: MonitoringTLSConfig? = nil
    /// `trace_topic`: every decision object published there (QoS 0, not retained); `nil` = off.
    public var traceTopic: String? = nil
    public var logLevel: LogLevel = .info
    public var logFormat: LogFormat = .text
    public init() {}
}
