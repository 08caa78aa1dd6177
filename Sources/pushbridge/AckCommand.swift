import Foundation
import PushBridge
import PushBridgeCLI

/// `pushbridge ack ALERT_ID [--snooze 30m] [--by NAME]`: publishes the acknowledgement (or
/// snooze) to `conditions.ack_topic` on the broker FILE configures, QoS 1, and waits for the
/// broker's PUBACK. Its client id is the bridge's with `-ack-<pid>` (never the bridge's own).
enum AckCommand {
    static func run(_ args: Arguments, config: BridgeConfig) -> Int32 {
        guard args.positionals.count == 1, let id = args.positionals.first else {
            return fail(2, "'ack' needs one ALERT_ID (see 'pushbridge alerts')")
        }
        guard let ackTopic = config.conditions?.ackTopic else {
            return fail(2, "\(config.sourcePath) has no 'conditions: {ack_topic: …}'")
        }
        var ack = Acknowledgement(alertID: id, by: args.value("--by"))
        if let text = args.value("--snooze") {
            guard let d = Acknowledgement.duration(text) else {
                return fail(2, "'--snooze' must be a duration such as 30m, got '\(text)'")
            }
            ack.snooze = d
        }
        var options = MQTTClientOptions(config: config.broker, will: nil, subscriptions: [])
        options.clientID = "\(config.broker.clientID)-ack-\(getpid())"
        options.cleanStart = true
        options.sessionExpiry = .zero
        // Semaphores: this command blocks until libmosquitto calls back with the PUBACK and the CONNACK.
        let acknowledged = DispatchSemaphore(value: 0)
        let connected = DispatchSemaphore(value: 0)
        let client: MQTTClient
        do {
            client = try MQTTClient(options: options)
        } catch {
            return fail(1, "\(error)")
        }
        // Waited for below (semaphores: this command blocks until the broker has answered).
        client.start(handlers: MQTTClientHandlers(
            onPublished: { _ in acknowledged.signal() },
            onConnection: { event in if case .connected = event { connected.signal() } }))
        defer { client.stop(flushTimeout: .seconds(1)) }
        let broker = config.broker.address.description
        guard connected.wait(timeout: .now() + 10) == .success else {
            return fail(1, "no connection to the broker \(broker) within 10 s")
        }
        do {
            _ = try client.publish(topic: ackTopic, payload: ack.payload, qos: 1, retain: false)
        } catch {
            return fail(1, "publish to '\(ackTopic)' failed: \(error) (broker \(broker))")
        }
        guard acknowledged.wait(timeout: .now() + 10) == .success else {
            return fail(1, "the broker \(broker) did not acknowledge the publish within 10 s")
        }
        printOut(ack.snooze.map { "\(id): snoozed for \(Acknowledgement.text($0))" } ?? "\(id): acknowledged")
        return 0
    }
}
