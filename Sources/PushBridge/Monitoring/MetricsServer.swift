import CMicroHTTPD
import Foundation
import Synchronization

/// Why the metrics endpoint could not start.
enum MetricsServerError: Error, Equatable, CustomStringConvertible {
    /// Not a `host:port` (e.g. `127.0.0.1:9464`, `[::1]:9464`).
    case invalidAddress(String)
    /// The socket could not be bound or listened on; `reason` is `strerror`'s text.
    case bindFailed(address: String, reason: String)
    /// libmicrohttpd refused to start its daemon.
    case startFailed(address: String)
    /// libmicrohttpd could not be loaded; `reason` is the dynamic loader's text.
    case libraryMissing(address: String, reason: String)
    /// libmicrohttpd refused to start with `monitoring.tls` (GnuTLS did not take the certificate and key).
    case tlsFailed(address: String, certFile: String)

    /// One line for the log, naming the address.
    package var description: String {
        switch self {
        case .invalidAddress(let a): "metrics address '\(a)' is not a host:port such as 127.0.0.1:9464 or [::1]:9464"
        case .bindFailed(let a, let reason): "metrics endpoint \(a): \(reason)"
        case .startFailed(let a): "metrics endpoint \(a): libmicrohttpd could not start"
        case .libraryMissing(let a, let reason):
            "metrics endpoint \(a): cannot load libmicrohttpd (\(reason)); install libmicrohttpd12"
        case .tlsFailed(let a, let cert):
            "metrics endpoint \(a): libmicrohttpd could not start TLS with '\(cert)' and its key (is the key the certificate's?)"
        }
    }
}

/// The HTTP monitoring endpoint (`monitoring.http`), served by libmicrohttpd on its own thread.
///
/// Routes (GET and HEAD; other methods get 405): `/metrics` (Prometheus text, version
/// 0.0.4), `/healthz` (200 `ok` while the process runs), `/readyz` (200 `ready` while
/// `ready()` returns `true`, else 503 `not ready`, with `notReadyReason()` when it gives one); with `dashboard`, also `/` (the page),
/// `/api/stats` and `/api/events` (Server-Sent Events, see `EventStreams`); any other path
/// is 404. With `webPush`, also the `/subscribe` page and the subscription API (see
/// `WebPushEndpoints`; POST and DELETE bodies are read by `RequestUpload`). With `tls`, every
/// route is served over TLS only. With `access`, requests pass its check first (`HTTPAccess`:
/// the token of `monitoring.http_auth`, `POST /login`). The content providers are fixed at
/// init and called on libmicrohttpd's thread (`MetricsHandler`).
final class MetricsServer: Sendable {
    /// The address it was asked to bind (`HostPort`'s form: an IPv6 host in brackets).
    package let address: String
    /// The bound port (useful when the address asked for port 0).
    let port: Int
    private let handler: MetricsHandler
    /// The daemon handle; `nil` once stopped.
    private let daemon: Mutex<OpaquePointer?>
    /// The certificate and key handed to libmicrohttpd, kept until the daemon is gone.
    private let tlsMaterial: TLSMaterial?

    /// Binds exactly `address` (`host:port`, IPv6 in brackets, parsed as the config parses it;
    /// port 0 picks a free one) and starts serving.
    convenience init(address: String, metrics: @escaping @Sendable () -> String,
                            ready: @escaping @Sendable () -> Bool, notReadyReason: (@Sendable () -> String?)? = nil,
                            dashboard: DashboardEndpoints? = nil, webPush: WebPushEndpoints? = nil,
                            tls: MonitoringTLSConfig? = nil, access: HTTPAccess? = nil,
                            attachments: AttachmentDownloads? = nil) throws(MetricsServerError) {
        guard let hostPort = try? HostPort(parsing: address, ports: 0...65_535) else { throw .invalidAddress(address) }
        try self.init(address: hostPort, metrics: metrics, ready: ready, notReadyReason: notReadyReason, dashboard: dashboard, webPush: webPush, tls: tls,
                      access: access, attachments: attachments)
    }

    /// Binds exactly `hostPort` (port 0 picks a free one) and starts serving.
    init(address hostPort: HostPort, metrics: @escaping @Sendable () -> String,
                ready: @escaping @Sendable () -> Bool, notReadyReason: (@Sendable () -> String?)? = nil,
                dashboard: DashboardEndpoints? = nil, webPush: WebPushEndpoints? = nil,
                tls: MonitoringTLSConfig? = nil, access: HTTPAccess? = nil,
                attachments: AttachmentDownloads? = nil) throws(MetricsServerError) {
        let address = hostPort.description
        let socketAddress = try Self.bindAddress(hostPort)
        let mhd: pb_mhd
        switch MicroHTTPD.functions {
        case .success(let table): mhd = table.functions
        case .failure(let reason): throw .libraryMissing(address: address, reason: reason.text)
        }
        let (fd, port) = try Self.listen(on: socketAddress, address: address)
        let streams = dashboard.map { EventStreams(feed: $0.feed, snapshot: $0.snapshot, totals: $0.totals) }
        let handler = MetricsHandler(metrics: metrics, ready: ready, notReadyReason: notReadyReason, dashboard: dashboard, streams: streams, webPush: webPush,
                                     access: access, attachments: attachments)
        let material = tls.map { TLSMaterial(cert: $0.certPEM, key: $0.keyPEM) }
        let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_AUTO.rawValue
            | (streams == nil ? 0 : MHD_ALLOW_SUSPEND_RESUME.rawValue) | (material == nil ? 0 : MHD_USE_TLS.rawValue)
        let cls = Unmanaged.passUnretained(handler).toOpaque()
        var options: [CVarArg] = [MHD_OPTION.LISTEN_SOCKET.rawValue, fd,
                                  MHD_OPTION.CONNECTION_TIMEOUT.rawValue, UInt32(10),
                                  MHD_OPTION.NOTIFY_COMPLETED.rawValue, RequestUpload.completedCallback, OpaquePointer(cls)]
        if let material {
            options += [MHD_OPTION.HTTPS_MEM_KEY.rawValue, OpaquePointer(material.key),
                        MHD_OPTION.HTTPS_MEM_CERT.rawValue, OpaquePointer(material.cert)]
        }
        options.append(MHD_OPTION.END.rawValue)
        let started = withVaList(options) { args in
            mhd.start_daemon_va(flags, 0, nil, nil, { cls, connection, url, method, _, upload, uploadSize, context in
                guard let cls, let connection else { return .NO }
                let handler = Unmanaged<MetricsHandler>.fromOpaque(cls).takeUnretainedValue()
                return handler.serve(connection, method: method.map { String(cString: $0) } ?? "",
                                     path: url.map { String(cString: $0) } ?? "/",
                                     upload: upload, uploadSize: uploadSize, context: context)
            }, cls, args)
        }
        // On failure libmicrohttpd 0.9.75 has already closed the listen socket it was given
        // (every failure path after option parsing closes it), so it is not closed here.
        guard let started else {
            if let tls { throw .tlsFailed(address: address, certFile: tls.certFile) }
            throw .startFailed(address: address)
        }
        self.tlsMaterial = material   // freed only after the daemon (deinit stops it first)
        self.address = address
        self.port = port
        self.handler = handler   // outlives the daemon: deinit stops the daemon first
        self.daemon = Mutex(started)
        streams?.start()
    }

    /// Stops serving and closes the socket; waits for a request in progress. Idempotent.
    package func stop() {
        handler.streams?.stop()   // no connection may stay suspended when the daemon stops
        daemon.withLock { handle in
            if let d = handle, case .success(let table) = MicroHTTPD.functions {
                table.functions.stop_daemon(d)   // also closes the listen socket
            }
            handle = nil
        }
    }

    deinit { stop() }

    /// The socket address to bind for `address` (`host:port`, parsed as the config parses
    /// it; port 0 picks a free one): the resolver's first answer, IPv4 or IPv6.
    static func bindAddress(_ address: String) throws(MetricsServerError) -> SocketAddress {
        guard let hostPort = try? HostPort(parsing: address, ports: 0...65_535) else { throw .invalidAddress(address) }
        return try bindAddress(hostPort)
    }

    /// The socket address to bind for `hostPort`: the resolver's first answer, IPv4 or IPv6.
    static func bindAddress(_ hostPort: HostPort) throws(MetricsServerError) -> SocketAddress {
        do { return try hostPort.socketAddresses(passive: true)[0] } catch {
            throw .bindFailed(address: hostPort.description, reason: "\(error)")
        }
    }

    /// A bound, listening TCP socket and its port.
    private static func listen(on socketAddress: SocketAddress,
                               address: String) throws(MetricsServerError) -> (Int32, Int) {
        let fd = socketAddress.makeSocket()
        guard fd >= 0 else { throw .bindFailed(address: address, reason: String(cString: strerror(errno))) }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var bound = socketAddress
        let ok = withUnsafeMutablePointer(to: &bound.storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sp in
                bind(fd, sp, bound.length) == 0 && Glibc.listen(fd, 64) == 0 && getsockname(fd, sp, &bound.length) == 0
            }
        }
        guard ok else {
            let reason = String(cString: strerror(errno))
            close(fd)   // not handed to libmicrohttpd yet: ours to close
            throw .bindFailed(address: address, reason: reason)
        }
        return (fd, bound.port)
    }
}

/// One HTTP response to hand to libmicrohttpd.
struct HTTPResponse {
    var status: Int
    var bytes: [UInt8]
    var contentType = "text/plain; charset=utf-8"
    var headers: [(String, String)] = []

    /// The body as text.
    var body: String { String(decoding: bytes, as: UTF8.self) }

    init(status: Int, body: String, contentType: String = "text/plain; charset=utf-8",
         headers: [(String, String)] = []) {
        self.init(status: status, bytes: Array(body.utf8), contentType: contentType, headers: headers)
    }

    init(status: Int, bytes: [UInt8], contentType: String, headers: [(String, String)] = []) {
        self.status = status
        self.bytes = bytes
        self.contentType = contentType
        self.headers = headers
    }

    /// Queues this response on `connection`; libmicrohttpd copies the body (MUST_COPY).
    func queue(on connection: OpaquePointer) -> MHD_Result {
        // Only called back by a daemon, which exists only once the library loaded.
        guard case .success(let table) = MicroHTTPD.functions else { return .NO }
        let mhd = table.functions
        var bytes = self.bytes
        let response = bytes.withUnsafeMutableBytes { buffer in
            mhd.create_response_from_buffer(buffer.count, buffer.baseAddress, .RESPMEM_MUST_COPY)
        }
        guard let response else { return .NO }
        defer { mhd.destroy_response(response) }   // the queued reference keeps it alive
        _ = mhd.add_response_header(response, "Content-Type", contentType)
        for (name, value) in headers { _ = mhd.add_response_header(response, name, value) }
        return mhd.queue_response(connection, UInt32(status), response)
    }
}

/// libmicrohttpd, loaded with `dlopen` the first time a metrics endpoint starts (see
/// `Sources/CMicroHTTPD/shim.h`: linking it would map GnuTLS and its dependencies, ~2.4 MB
/// resident, into every bridge, with or without `monitoring.http`).
enum MicroHTTPD {
    /// The loaded function table.
    ///
    /// `@unchecked Sendable`: the table holds C function pointers, written once by the
    /// loader before this value is published and never changed.
    final class Table: @unchecked Sendable {
        let functions: pb_mhd
        init(_ functions: pb_mhd) { self.functions = functions }
    }

    /// Why loading failed (the dynamic loader's text).
    struct LoadError: Error {
        let text: String
    }

    /// Loaded once, on first use.
    static let functions: Result<Table, LoadError> = {
        var table = pb_mhd()
        if let error = pb_mhd_load(&table) { return .failure(LoadError(text: String(cString: error))) }
        return .success(Table(table))
    }()
}
