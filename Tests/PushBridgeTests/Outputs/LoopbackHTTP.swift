import Foundation
@testable import PushBridge

/// One HTTP exchange with a loopback server, through the outputs' own libcurl client,
/// bounded by `timeout`. For reading what a test server received (ntfy's JSON API, the
/// webhook server's request list).
func loopbackHTTP(_ request: ServiceRequest, timeout: Duration = .seconds(10)) throws -> ServiceResponse {
    guard let multi = CurlMulti<CurlTransfer>(maxHostConnections: 1) else { throw ProcessError(description: "curl_multi_init failed") }
    try multi.add(CurlTransfer(request, tag: 1, timeout: timeout, tls: OutputTLSConfig()))
    let deadline = ContinuousClock.now + timeout + .seconds(1)
    while ContinuousClock.now < deadline {
        multi.perform()
        if let (_, answer) = multi.finished().first {
            switch answer {
            case .response(let r): return r
            case .failed(let e): throw ProcessError(description: "\(request.method) \(request.url): \(e)")
            }
        }
        multi.wait(milliseconds: 100)
    }
    throw ProcessError(description: "\(request.method) \(request.url): no answer in \(timeout)")
}

/// `GET url` answered with JSON: the value, or an error with the status and body.
func loopbackJSON(_ url: String, headers: [(name: String, value: String)] = []) throws -> JSONValue {
    let r = try loopbackHTTP(ServiceRequest(method: "GET", url: url, headers: headers))
    guard r.status == 200 else {
        throw ProcessError(description: "GET \(url): \(r.status) \(String(decoding: r.body, as: UTF8.self))")
    }
    return try JSONValue.parse(r.body)
}

/// `integration/outputs/hook_server.py` on a free loopback port: the webhook tests' endpoint.
final class HookServer: Sendable {
    let port: Int
    let process: ManagedProcess

    private init(port: Int, process: ManagedProcess) {
        self.port = port
        self.process = process
    }

    static func start() async throws -> HookServer {
        let port = try LoopbackPorts.free()
        let p = try ManagedProcess("/usr/bin/python3", ["-u", repositoryRoot + "/integration/outputs/hook_server.py", String(port)])
        try await eventually("hook server on \(port)") { LoopbackPorts.isAccepting(port) }
        return HookServer(port: port, process: p)
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Every request received so far.
    func requests() throws -> [JSONValue] {
        guard case .array(let list) = try loopbackJSON(url("/_requests")) else { return [] }
        return list
    }

    func requests(under prefix: String) throws -> [JSONValue] {
        try requests().filter { ($0["path"]?.stringValue ?? "").hasPrefix(prefix) }
    }

    func stop() async { _ = await process.terminate(grace: .seconds(2)) }
}
