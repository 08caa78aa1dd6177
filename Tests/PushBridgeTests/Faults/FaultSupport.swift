import Foundation
@testable import PushBridge

/// Helpers for the fault tests: a bridge.yml for a test broker, and reading display messages.
enum FaultSupport {
    /// A config text: one text route on `prefix/+`, display `display/{{ topic }}` at QoS 1,
    /// optionally a journal in `journalPath`, a fast reconnect, no status or stats topics.
    static func config(broker: TestBroker, clientID: String, prefix: String, journalPath: String?,
                       logLevel: String = "info", extra: String = "") -> String {
        var text = brokerSection(broker, clientID: clientID) + """
            routes:
              - name: faults
                topic: "\(prefix)/+"
                qos: 1
                input: text
                mutable_content: false
                alert:
                  body: "{{ raw }}"
            display:
              topic: "display/{{ topic }}"
              qos: 1
            monitoring:
              status_topic: null
              stats_topic: null
              log_level: \(logLevel)

            """
        if let journalPath {
            text += """
                journal:
                  path: \(journalPath)
                  fsync: never

                """
        }
        return text + extra
    }

    /// (`body`, `id`) of a JSON display message.
    static func bodyAndID(_ m: InboundMessage) -> (body: String, id: String)? {
        guard case .object(let o)? = try? JSONValue.parse(m.payload),
              case .string(let body)? = o["body"], case .string(let id)? = o["id"] else { return nil }
        return (body, id)
    }
}
