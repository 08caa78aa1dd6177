import Testing
@testable import PushBridge

/// One test per kind of problem, each asserting the exact printed line with its position.
@Suite struct ConfigErrorKindTests {
    private static let route = "routes: [{topic: a}]\n"

    @Test(arguments: [
        // Structure and routes.
        ("routes: []\n", "bridge.yml:1:9: error: 'routes' is empty: at least one route is needed"),
        ("broker: {host: x}\n", "bridge.yml:1:1: error: 'routes' is missing: at least one route is needed"),
        ("routes: {topic: a}\n", "bridge.yml:1:9: error: 'routes' must be a list, got a mapping"),
        ("routes:\n  - qos: 1\n", "bridge.yml:2:5: error: route needs 'topic' (an MQTT topic filter)"),
        ("routes:\n  - topic: a\n  - topic: a\n",
         "bridge.yml:3:12: error: duplicate route name 'a' (first at line 2); give each route a unique 'name'"),
        ("routes:\n  - {name: x, topic: a}\n  - {name: x, topic: b}\n",
         "bridge.yml:3:12: error: duplicate route name 'x' (first at line 2); give each route a unique 'name'"),
        ("routes:\n  - topic: a\n    qos: \"1\"\n", "bridge.yml:3:10: error: 'qos' must be 0, 1 or 2, got \"1\""),
        ("routes:\n  - topic: a\n    qos: 3\n", "bridge.yml:3:10: error: 'qos' must be 0, 1 or 2, got 3"),
        ("routes:\n  - topic: a\n    share: g/1\n",
         "bridge.yml:3:12: error: 'share' must be a group name without '/', '+' or '#', got \"g/1\""),
        ("routes:\n  - topic: $share/g/a\n",
         "bridge.yml:2:12: error: 'topic' must not start with '$share/'; use 'share: <group>' instead"),
        ("routes:\n  - topic: a+\n", "bridge.yml:2:12: error: invalid topic filter 'a+': '+' must occupy a whole topic level"),
        ("routes:\n  - topic: ''\n", "bridge.yml:2:12: error: invalid topic filter '': a topic must not be empty"),
        ("routes:\n  - topic: a\n    input: xml\n",
         "bridge.yml:3:12: error: 'input' must be one of \"json\", \"text\" or \"apns\", got \"xml\""),
        ("routes:\n  - topic: a\n    push_type: alrt\n",
         "bridge.yml:3:16: error: 'push_type' must be one of \"alert\", \"background\", \"location\", \"voip\", \"complication\", \"fileprovider\", \"mdm\", \"liveactivity\", \"pushtotalk\", \"widgets\", \"controls\" or \"none\", got \"alrt\"; did you mean \"alert\"?"),
        ("routes:\n  - topic: a\n    priority: 7\n", "bridge.yml:3:15: error: 'priority' must be 10, 5 or 1, got 7"),
        ("routes:\n  - topic: a\n    push_type: background\n    priority: 10\n",
         "bridge.yml:4:15: error: 'priority' 10 is not allowed with push_type background (APNs BadPriority); use 5"),
        ("routes:\n  - topic: a\n    mutable_content: on\n",
         "bridge.yml:3:22: error: 'mutable_content' must be true or false, got on (YAML 1.1 booleans are not accepted; write true)"),
        ("routes:\n  - topic: a\n    mutable_content: \"true\"\n",
         "bridge.yml:3:22: error: 'mutable_content' must be true or false, got \"true\""),
        ("routes:\n  - topic: a\n    expiration: soon\n",
         "bridge.yml:3:17: error: 'expiration' must be a duration such as 250ms, 30s, 10m, 2h, 1d or a number of seconds, got \"soon\""),
        ("routes:\n  - topic: a\n    collapse_id: \(String(repeating: "x", count: 65))\n",
         "bridge.yml:3:18: error: 'collapse_id' must be at most 64 bytes (APNs BadCollapseId), got 65"),
        ("routes:\n  - topic: a\n    alert: {interruption_level: loud}\n",
         "bridge.yml:3:33: error: 'interruption_level' must be one of \"passive\", \"active\", \"time-sensitive\" or \"critical\", got \"loud\""),
        ("routes:\n  - topic: a\n    alert: {relevance_score: 1.5}\n",
         "bridge.yml:3:30: error: 'relevance_score' must be a number from 0 to 1, got 1.5"),
        ("routes:\n  - topic: a\n    alert: {badge: many}\n", "bridge.yml:3:20: error: 'badge' must be an integer, got \"many\""),
        ("routes:\n  - topic: a\n    alert: {titel: x}\n",
         "bridge.yml:3:13: error: unknown key 'titel' in alert; did you mean 'title'?"),
        ("routes:\n  - topic: a\n    alert: hello\n", "bridge.yml:3:12: error: 'alert' must be a mapping, got \"hello\""),
        ("routes:\n  - topic: a\n    user_info: {a: 1}\n", "bridge.yml:3:16: error: 'user_info' must be a template string, got a mapping"),
        // Broker.
        ("broker:\n  protocol: 4\n" + route, "bridge.yml:2:13: error: 'protocol' must be 5 or \"3.1.1\", got 4"),
        ("broker:\n  keepalive: 3s\n" + route, "bridge.yml:2:14: error: 'keepalive' must be between 5s and 65535s, got 3s"),
        ("broker:\n  keepalive: -5s\n" + route,
         "bridge.yml:2:14: error: 'keepalive' must be a duration such as 250ms, 30s, 10m, 2h, 1d or a number of seconds, got \"-5s\""),
        ("broker:\n  port: 0\n" + route, "bridge.yml:2:9: error: 'port' must be between 1 and 65535, got 0"),
        ("broker:\n  port: 1883.5\n" + route, "bridge.yml:2:9: error: 'port' must be an integer, got 1883.5"),
        ("broker:\n  host: ''\n" + route, "bridge.yml:2:9: error: 'host' must not be empty"),
        ("broker:\n  password: a\n  password_file: /x\n" + route,
         "bridge.yml:3:18: error: 'password' and 'password_file' are mutually exclusive; keep one"),
        ("broker:\n  tls: {cert_file: c.pem}\n" + route,
         "bridge.yml:2:9: error: 'cert_file' needs 'key_file' too (a client certificate needs both)"),
        ("broker:\n  reconnect: {min: 1m, max: 10s}\n" + route,
         "bridge.yml:2:15: error: reconnect 'min' (1m) must not be greater than 'max' (10s)"),
        ("broker:\n  reconnect: {min: 0s}\n" + route, "bridge.yml:2:20: error: 'min' must be greater than 0, got 0s"),
        ("broker:\n  hots: x\n" + route, "bridge.yml:2:3: error: unknown key 'hots' in broker; did you mean 'host'?"),
        // Extension and filters.
        ("extension:\n  concurrency: 0\n" + route, "bridge.yml:2:16: error: 'concurrency' must be at least 1, got 0"),
        ("extension:\n  on_failure: retry\n" + route,
         "bridge.yml:2:15: error: 'on_failure' must be one of \"deliver\" or \"drop\", got \"retry\""),
        ("extension:\n  command: []\n" + route,
         "bridge.yml:2:12: error: 'command' must be a non-empty list: the program and its arguments"),
        ("extension:\n  command: python3 x.py\n" + route, "bridge.yml:2:12: error: 'command' must be a list, got \"python3 x.py\""),
        ("extension:\n  filters:\n    - name: x\n" + route,
         "bridge.yml:3:7: error: filter needs one action key: 'suppress', 'set', 'dedupe', 'rate_limit', 'changed' or 'quiet_hours'"),
        ("extension:\n  filters:\n    - {suppress: 'true', dedupe: {key: a, window: 1s}}\n" + route,
         "bridge.yml:3:26: error: filter has more than one action key ('suppress', 'dedupe'); split it into one filter each"),
        ("extension:\n  filters:\n    - set: {tilte: x}\n" + route,
         "bridge.yml:3:13: error: unknown key 'tilte' in set; did you mean 'title'?"),
        ("extension:\n  filters:\n    - set: {colour: x}\n" + route,
         "bridge.yml:3:13: error: unknown key 'colour' in set; known keys: title, subtitle, body, sound, sound_critical, sound_volume, badge, thread_id, category, interruption_level, relevance_score, target_content_id, filter_criteria, user_info"),
        ("extension:\n  filters:\n    - suppress: 'true'\n      routes: [dorbell]\nroutes: [{name: doorbell, topic: a}]\n",
         "bridge.yml:4:16: error: unknown route 'dorbell' in filter 'routes'; did you mean 'doorbell'?"),
        ("extension:\n  filters:\n    - suppress: 'true'\n    - {name: suppress#1, suppress: 'false'}\n" + route,
         "bridge.yml:4:14: error: duplicate filter name 'suppress#1' (first at line 3)"),
        ("extension:\n  filters:\n    - dedupe: {key: a}\n" + route, "bridge.yml:3:15: error: 'dedupe' needs 'window'"),
        ("extension:\n  filters:\n    - rate_limit: {key: a, max: 0, window: 1m}\n" + route,
         "bridge.yml:3:33: error: 'max' must be at least 1, got 0"),
        ("extension:\n  filters:\n    - quiet_hours: {from: \"25:00\", to: \"07:00\"}\n" + route,
         "bridge.yml:3:27: error: 'from' must be a time \"HH:MM\" (00:00 to 23:59), got \"25:00\""),
        ("extension:\n  filters:\n    - quiet_hours: {from: \"22:00\", to: \"07:00\", timezone: Mars/Olympus}\n" + route,
         "bridge.yml:3:59: error: unknown 'timezone' \"Mars/Olympus\"; use an IANA name such as Europe/Berlin"),
        // Outputs and monitoring.
        ("display:\n  format: html\n" + route,
         "bridge.yml:2:11: error: 'format' must be one of \"json\", \"apns\" or \"text\", got \"html\""),
        ("display:\n  topic: out/+\n" + route, "bridge.yml:2:10: error: invalid 'topic' 'out/+': a topic to publish to must not contain the wildcards '+' or '#'"),
        ("dead_letter: {qos: 1}\n" + route, "bridge.yml:1:14: error: 'dead_letter' needs 'topic'"),
        ("journal:\n  fsync: sometimes\n" + route,
         "bridge.yml:2:10: error: 'fsync' must be one of \"always\", \"interval\" or \"never\", got \"sometimes\""),
        ("monitoring:\n  stats_topic: stats/#\n" + route,
         "bridge.yml:2:16: error: invalid 'stats_topic' 'stats/#': a topic to publish to must not contain the wildcards '+' or '#'"),
        ("monitoring:\n  http: 9464\n" + route,
         "bridge.yml:2:9: error: invalid 'http' 9464: expected \"host:port\", e.g. \"127.0.0.1:9464\""),
        ("monitoring:\n  http: \"127.0.0.1:99999\"\n" + route,
         "bridge.yml:2:9: error: invalid 'http' \"127.0.0.1:99999\": the port must be 1 to 65535, got '99999'"),
        ("monitoring:\n  log_level: verbose\n" + route,
         "bridge.yml:2:14: error: 'log_level' must be one of \"debug\", \"info\", \"warning\" or \"error\", got \"verbose\""),
        ("monitoring:\n  max_topics: 0\n" + route, "bridge.yml:2:15: error: 'max_topics' must be at least 1, got 0"),
        // YAML-level problems.
        ("routes: [{topic: a}]\nroutes: []\n", "bridge.yml:2:1: error: duplicate key 'routes' (first at line 1)"),
        ("- a\n", "bridge.yml:1:1: error: the file must be a mapping of sections (broker, routes, extension, …), got a list"),
    ])
    func reportsExactly(_ yaml: String, _ expected: String) {
        let errors = configErrors(yaml)
        #expect(errors.contains(expected), "got \(errors)")
        if expected.contains("'routes' is missing") || expected.contains("mapping of sections") {
            return
        }
        #expect(errors.count == 1, "got \(errors)")
    }

    @Test func validHostPorts() {
        for good in ["127.0.0.1:9464", "0.0.0.0:1", "localhost:65535", "[::1]:9464"] {
            #expect(ConfigReader.hostPortProblem(good) == nil, "\(good)")
        }
        for bad in [":9464", "host:", "host:0", "::1:9464", "[::1:9464", "a b:1", "host:12a"] {
            #expect(ConfigReader.hostPortProblem(bad) != nil, "\(bad)")
        }
    }
}
