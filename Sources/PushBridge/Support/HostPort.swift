import Glibc

/// A `host:port` address: a host name, an IPv4 address, or an IPv6 address in brackets
/// (`[::1]:9464`). The one parser of `monitoring.http`, the metrics server's bind address,
/// the dashboard client and `pushbridge health`, so what `check` accepts `run` binds.
package struct HostPort: Sendable, Hashable, CustomStringConvertible {
    /// The host, without brackets (`::1`, `127.0.0.1`, `localhost`).
    package var host: String
    /// The port.
    var port: Int

    /// Why a text is not a `host:port`, or why its host could not be resolved.
    package struct Problem: Error, Equatable, CustomStringConvertible {
        package let description: String
    }

    /// The address from its parts.
    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `host:port`, an IPv6 host in brackets.
    package var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Parses `host:port`. `ports` are the ports allowed (0 lets the system pick one when
    /// binding); with a `defaultPort` the `:port` may be left out.
    package init(parsing string: some StringProtocol, ports: ClosedRange<Int> = 1...65_535,
                defaultPort: Int? = nil) throws(Problem) {
        let text = Substring(string)
        var host = text
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text.index(after: text.startIndex) < close else {
                throw Problem(description: "an IPv6 host needs closing ']'")
            }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw Problem(description: "expected ':' after ']'") }
                portText = after.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            if host.contains(":") { throw Problem(description: "write an IPv6 host in brackets, e.g. \"[::1]:9464\"") }
        }
        if host.isEmpty { throw Problem(description: "the host is empty; use 0.0.0.0 for every interface") }
        if host.contains(where: { $0 == " " || $0 == "/" }) {
            throw Problem(description: "'\(host)' is not a host name or address")
        }
        guard let portText else {
            guard let defaultPort else { throw Problem(description: "expected \"host:port\", e.g. \"127.0.0.1:9464\"") }
            self.init(host: String(host), port: defaultPort)
            return
        }
        guard !portText.isEmpty, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
              let port = Int(portText), ports.contains(port) else {
            throw Problem(description: "the port must be \(ports.lowerBound) to \(ports.upperBound), got '\(portText)'")
        }
        self.init(host: String(host), port: port)
    }

    /// The address to connect to for a server bound here: a wildcard host (`0.0.0.0`, `::`)
    /// becomes loopback.
    package var connectable: HostPort {
        switch host {
        case "0.0.0.0": HostPort(host: "127.0.0.1", port: port)
        case "::", "::0": HostPort(host: "::1", port: port)
        default: self
        }
    }

    /// `true` when the host is a loopback address written out: `localhost`, an IPv4 address in
    /// 127.0.0.0/8, `::1` (in any spelling) or an IPv4-mapped loopback (`::ffff:127.0.0.1`).
    /// Host names are not resolved: a name that happens to point at loopback does not count.
    var isLoopback: Bool {
        if host.lowercased() == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes == [UInt8](repeating: 0, count: 15) + [1] { return true }
        return bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
    }

    /// The socket addresses of this host and port, in the resolver's order (`localhost` is
    /// 127.0.0.1, as it always was for the metrics endpoint); never empty. `passive` for binding.
    package func socketAddresses(passive: Bool = false) throws(Problem) -> [SocketAddress] {
        var hints = addrinfo()  // ai_family 0: IPv4 and IPv6 alike
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host == "localhost" ? "127.0.0.1" : host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            throw Problem(description: "cannot resolve '\(host)': \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(first) }
        var found: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor?.pointee {
            cursor = info.ai_next
            guard let address = info.ai_addr, Int(info.ai_addrlen) <= MemoryLayout<sockaddr_storage>.size else { continue }
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(info.ai_addrlen))) }
            found.append(SocketAddress(storage: storage, length: info.ai_addrlen))
        }
        guard !found.isEmpty else { throw Problem(description: "no address for '\(host)'") }
        return found
    }
}

/// One resolved socket address (IPv4 or IPv6), ready for `bind` or `connect`.
package struct SocketAddress: @unchecked Sendable {
    // `@unchecked`: `sockaddr_storage` is plain bytes, copied by value.
    /// The address bytes.
    var storage: sockaddr_storage
    /// How many of them are used.
    package var length: socklen_t

    /// `AF_INET` or `AF_INET6`.
    var family: Int32 { Int32(storage.ss_family) }

    /// The port (at the same place in `sockaddr_in` and `sockaddr_in6`).
    var port: Int {
        var copy = storage
        return withUnsafeBytes(of: &copy) { Int(UInt16(bigEndian: $0.load(fromByteOffset: 2, as: UInt16.self))) }
    }

    /// Calls `body` with the address as the C calls take it.
    package func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var copy = storage
        return withUnsafePointer(to: &copy) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) } }
    }

    /// A new `SOCK_STREAM` socket of this address's family (close-on-exec), or -1.
    package func makeSocket() -> Int32 {
        socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    }
}
