import Foundation
import PushBridge
import PushBridgeCLI

/// `pushbridge ack ALERT_ID [--snooze 30m] [--by NAME]`: publishes the acknowledgement (or
/// snooze) to `conditions.ack_topic` on the broker FILE configures, QoS 1, and waits for the
/// broker's PUBACK. Its client id is the bridge's with `-ack-<pid>` (never the bridge's own).
///
/// An empty id or a bad duration is refused (exit 2). With `monitoring.http` the bridge's
/// `GET /api/alerts` is asked first: an id that is not active exits 1 with the active ones;
/// a server that does not answer is said on stderr, and the acknowledgement is published
/// anyway (the bridge may run elsewhere, or be restarting).
enum AckCommand {
    static func run(_ args: Arguments, config: BridgeConfig) -> Int32 {
        let ack: Acknowledgement
        switch AckRequest.make(positionals: args.positionals, snooze: args.value("--snooze"), by: args.value("--by")) {
        case .failure(let refusal): return fail(2, refusal.description)
        case .success(let made): ack = made
        }
        let id = ack.alertID ?? ""
        guard let ackTopic = config.conditions?.ackTopic else {
            return fail(2, "\(config.sourcePath) has no 'conditions: {ack_topic: …}'")
        }
        if let http = config.monitoring.http {
            let target = HealthTarget(address: http.connectable, path: "/api/alerts", bearer: config.monitoring.httpAuth?.token?.text)
            switch activeAlerts(target) {
            case .success(let alerts):
                if let missing = AckRequest.missing(id, in: alerts) { return fail(1, missing) }
            case .failure(let problem):
                printErr("pushbridge: cannot check that \(id) is active: \(problem.reason); "
                         + "publishing the acknowledgement anyway (the bridge may run elsewhere)")
            }
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

    /// The active alerts the bridge's `GET /api/alerts` answers, or why there are none to compare with.
    static func activeAlerts(_ target: HealthTarget) -> Result<[JSONValue], HealthProblem> {
        switch HealthProbe.get(target, timeoutMilliseconds: 3_000) {
        case .failure(let problem):
            return .failure(HealthProblem(reason: "GET \(target) failed: \(problem.reason)"))
        case .success(let answer) where answer.status != 200:
            return .failure(HealthProblem(reason: "GET \(target) answered HTTP \(answer.status)"))
        case .success(let answer):
            guard case .array(let alerts)? = try? JSONValue.parse(answer.body) else {
                return .failure(HealthProblem(reason: "GET \(target) did not answer a JSON array"))
            }
            return .success(alerts)
        }
    }
}
