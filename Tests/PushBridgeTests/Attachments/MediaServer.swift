import Foundation
@testable import PushBridge

/// `integration/attachments/media_server.py` on a free loopback port: images, redirects,
/// errors, slow, silent and endless bodies for the attachment fetch tests.
final class MediaServer: Sendable {
    let port: Int
    let process: ManagedProcess

    private init(port: Int, process: ManagedProcess) {
        self.port = port
        self.process = process
    }

    static func start() async throws -> MediaServer {
        let port = try LoopbackPorts.free()
        let p = try ManagedProcess("/usr/bin/python3", ["-u", repositoryRoot + "/integration/attachments/media_server.py", String(port)])
        try await eventually("media server on \(port)") { LoopbackPorts.isAccepting(port) }
        return MediaServer(port: port, process: p)
    }

    /// `http://127.0.0.1:<port>`.
    var base: String { "http://127.0.0.1:\(port)" }

    /// The paths requested so far, in order.
    func paths() throws -> [String] {
        guard case .array(let list) = try loopbackJSON(base + "/_requests") else { return [] }
        return list.compactMap { $0["path"]?.stringValue }
    }

    /// The headers of the requests to `path`.
    func headers(of path: String) throws -> [JSONValue] {
        guard case .array(let list) = try loopbackJSON(base + "/_requests") else { return [] }
        return list.filter { $0["path"]?.stringValue == path }.compactMap { $0["headers"] }
    }

    func stop() async { _ = await process.terminate(grace: .seconds(2)) }
}
