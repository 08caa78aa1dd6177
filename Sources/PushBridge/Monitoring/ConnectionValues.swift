import CMicroHTTPD
import Glibc

/// What a request's libmicrohttpd connection tells besides its method and path: a header, a
/// cookie, the client's address. Called on libmicrohttpd's thread, during the request.
enum ConnectionValues {
    /// The value of request header `name`, or `nil`.
    static func header(_ connection: OpaquePointer, _ name: String) -> String? {
        guard case .success(let table) = MicroHTTPD.functions,
              let value = table.functions.lookup_connection_value(connection, .HEADER_KIND, name) else { return nil }
        return String(cString: value)
    }

    /// The value of cookie `name` in the `Cookie` header, or `nil`.
    static func cookie(_ connection: OpaquePointer, _ name: String) -> String? {
        header(connection, "Cookie").flatMap { cookie(name, in: $0) }
    }

    /// The value of cookie `name` in a `Cookie` header's text (`a=1; b=2`), or `nil`.
    static func cookie(_ name: String, in header: String) -> String? {
        for pair in header.split(separator: ";") {
            let trimmed = pair.drop { $0 == " " || $0 == "\t" }
            guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals] == name else { continue }
            var value = trimmed[trimmed.index(after: equals)...]
            while value.last == " " || value.last == "\t" { value = value.dropLast() }
            if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
            return String(value)
        }
        return nil
    }

    /// The client's address as text (`192.0.2.7`, `2001:db8::1`; an IPv4-mapped IPv6 address
    /// as its IPv4 address), or `""` when libmicrohttpd has none.
    static func clientAddress(_ connection: OpaquePointer) -> String {
        guard case .success(let table) = MicroHTTPD.functions,
              let address = withUnsafePointer(to: table.functions, { pb_mhd_client_address($0, connection) }) else { return "" }
        let length = Int32(address.pointee.sa_family) == AF_INET6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size
        var host = [CChar](repeating: 0, count: 128)
        guard getnameinfo(address, socklen_t(length), &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { return "" }
        let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("::ffff:"), text.contains(".") { return String(text.dropFirst("::ffff:".count)) }
        return text
    }
}
