import PushBridge
import PushBridgeCLI

/// The commands that read the HTTP API of the bridge FILE configures (`alerts`, `people`):
/// one `GET` with its token, and the messages and exit statuses when it cannot be read.
enum BridgeAPI {
    /// What a `GET` gave: the answer's bytes and their JSON, or the exit status of a failure
    /// whose message was printed (2: `monitoring.http` is not set; 1: no usable answer).
    enum Answer {
        case json(body: [UInt8], value: JSONValue)
        case exit(Int32)
    }

    /// `GET path` of the bridge `config` configures; `what` names what is read ("alerts")
    /// in the message printed when `monitoring.http` is not set.
    static func get(_ path: String, config: BridgeConfig, what: String) -> Answer {
        guard let http = config.monitoring.http else {
            return .exit(fail(2, "monitoring.http is not set in \(config.sourcePath); \(what) are read from its \(path)"))
        }
        let target = HealthTarget(address: http.connectable, path: path, bearer: config.monitoring.httpAuth?.token?.text)
        switch HealthProbe.get(target, timeoutMilliseconds: 5_000) {
        case .failure(let problem):
            return .exit(fail(1, "GET \(target) failed: \(problem.reason)"))
        case .success(let answer) where answer.status != 200:
            return .exit(fail(1, "GET \(target) answered HTTP \(answer.status)"))
        case .success(let answer):
            guard let value = try? JSONValue.parse(answer.body) else {
                return .exit(fail(1, "GET \(target) did not answer JSON"))
            }
            return .json(body: answer.body, value: value)
        }
    }
}
