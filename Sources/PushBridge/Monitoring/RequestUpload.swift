import CMicroHTTPD

/// A request body read through libmicrohttpd's upload-data calls, bounded in size.
///
/// libmicrohttpd calls the access handler once with the headers (the context pointer still
/// empty: an upload is made and kept there, retained), once per piece of the body, and once
/// more with no data: then the response is queued. The request-completed callback releases
/// the upload however the request ended (answered, or the client went away mid-body).
/// Used on libmicrohttpd's thread only.
final class RequestUpload {
    /// The most bytes kept; more marks the upload as too large (the rest is read and dropped).
    let limit: Int
    private(set) var bytes: [UInt8] = []
    private(set) var overflowed = false

    init(limit: Int) { self.limit = limit }

    func append(_ data: UnsafePointer<CChar>, count: Int) {
        guard !overflowed else { return }
        guard bytes.count + count <= limit else {
            overflowed = true
            bytes = []
            return
        }
        data.withMemoryRebound(to: UInt8.self, capacity: count) { bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: count)) }
    }

    /// One access-handler call for a request with a body: `respond` gets the body (`nil`
    /// when it was over `limit`) once it has all arrived.
    static func step(_ connection: OpaquePointer, _ data: UnsafePointer<CChar>?, _ size: UnsafeMutablePointer<Int>,
                     _ context: UnsafeMutablePointer<UnsafeMutableRawPointer?>, limit: Int,
                     respond: ([UInt8]?) -> HTTPResponse) -> MHD_Result {
        guard let existing = context.pointee else {
            context.pointee = Unmanaged.passRetained(RequestUpload(limit: limit)).toOpaque()
            return .YES
        }
        let upload = Unmanaged<RequestUpload>.fromOpaque(existing).takeUnretainedValue()
        if size.pointee > 0 {
            if let data { upload.append(data, count: size.pointee) }
            size.pointee = 0
            return .YES
        }
        return respond(upload.overflowed ? nil : upload.bytes).queue(on: connection)
    }

    /// `MHD_OPTION_NOTIFY_COMPLETED`'s callback, as a variadic argument: releases the upload kept for the request, if any.
    static var completedCallback: OpaquePointer {
        let callback: MHD_RequestCompletedCallback = { _, _, context, _ in
            guard let context, let upload = context.pointee else { return }
            Unmanaged<RequestUpload>.fromOpaque(upload).release()
            context.pointee = nil
        }
        return unsafeBitCast(callback, to: OpaquePointer.self)
    }
}

/// The TLS certificate and key as NUL-terminated C strings for libmicrohttpd's
/// `MHD_OPTION_HTTPS_MEM_CERT`/`_KEY`, kept alive for the daemon's life; the key's bytes are
/// zeroed when freed. `@unchecked Sendable`: the memory is written once in `init` and only
/// read (by libmicrohttpd) until `deinit`.
final class TLSMaterial: @unchecked Sendable {
    let cert: UnsafeMutablePointer<CChar>
    let key: UnsafeMutablePointer<CChar>
    private let keyLength: Int

    init(cert: [UInt8], key: [UInt8]) {
        self.cert = Self.copy(cert)
        self.key = Self.copy(key)
        self.keyLength = key.count
    }

    deinit {
        for i in 0..<keyLength { key[i] = 0 }
        cert.deallocate()
        key.deallocate()
    }

    private static func copy(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar> {
        let p = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        for (i, b) in bytes.enumerated() { p[i] = CChar(bitPattern: b) }
        p[bytes.count] = 0
        return p
    }
}
