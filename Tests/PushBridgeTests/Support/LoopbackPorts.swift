import Foundation
import Synchronization
@testable import PushBridge

/// Loopback TCP helpers for tests: a free port, and whether a port accepts connections.
enum LoopbackPorts {
    /// Ports handed out by this process, never handed out twice.
    private static let handedOut = Mutex<Set<Int>>([])

    /// A port that was free a moment ago, for a server a test starts.
    ///
    /// Chosen at random below the kernel's ephemeral range (32768–60999 here): a port the
    /// kernel gave `bind(0)` can be taken again by any outgoing connection (every test
    /// client's source port) before the server binds it, which made tests fail with
    /// "Address already in use". Never the same port twice in one run.
    static func free() throws -> Int {
        for _ in 0..<500 {
            let port = Int.random(in: 20_000..<32_000)
            let fresh = handedOut.withLock { $0.insert(port).inserted }
            if fresh, canBind(port) { return port }
        }
        throw ProcessError(description: "no free loopback port found in 20000-31999")
    }

    /// `true` when 127.0.0.1:`port` can be bound now.
    private static func canBind(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// A TCP socket connected to `host`:`port` (127.0.0.1 unless told), with a receive
    /// timeout; the caller closes it.
    static func connect(port: Int, host: String = "127.0.0.1", receiveTimeout seconds: Int = 5) -> Int32? {
        guard let address = try? HostPort(host: host, port: port).socketAddresses()[0] else { return nil }
        let fd = address.makeSocket()
        guard fd >= 0 else { return nil }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard address.withSockaddr({ Glibc.connect(fd, $0, $1) }) == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// `true` when something accepts a TCP connection on 127.0.0.1:`port`.
    static func isAccepting(_ port: Int) -> Bool {
        guard let fd = connect(port: port, receiveTimeout: 1) else { return false }
        close(fd)
        return true
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
