@testable import PushBridge

/// The `broker:` section of every test's `bridge.yml`: the test broker on 127.0.0.1, MQTT
/// `version`, keepalive 5 s, a fast reconnect (100–500 ms), then `extra` lines (each
/// indented into the section: `clean_start: false`, `tls: {...}`, `username: ...`).
///
/// The rest of the file is the test's own text: `brokerSection(broker, clientID: id) + "routes: ..."`.
func brokerSection(_ broker: TestBroker, clientID: String, port: Int? = nil,
                   version: MQTTProtocolVersion = .v5, extra: String = "") -> String {
    var lines = [
        "broker:",
        "  host: 127.0.0.1",
        "  port: \(port ?? broker.port)",
        "  client_id: \(clientID)",
        "  protocol: \(version == .v5 ? "5" : "\"3.1.1\"")",
        "  keepalive: 5s",
        "  reconnect: {min: 100ms, max: 500ms}",
    ]
    lines += extra.split(separator: "\n").map { "  " + $0 }
    return lines.joined(separator: "\n") + "\n"
}
