import CCurl
import Foundation

/// One HTTP exchange on one libcurl easy handle: the request's options, the buffers the
/// answer is collected into, and what it belongs to (`tag`).
///
/// Owned by the output's worker thread, which alone touches it (the multi handle drives it
/// there); the handle is cleaned up in `deinit`, after the multi handle let go of it.
final class CurlTransfer: CurlDriven {
    let handle: UnsafeMutableRawPointer
    /// Which delivery this exchange is for.
    let tag: Int
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// The request body, copied: libcurl reads it in place while the transfer runs.
    private let requestBody: UnsafeMutableRawBufferPointer
    /// The curl error buffer (CURL_ERROR_SIZE bytes).
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    fileprivate var body: [UInt8] = []
    fileprivate var headers: [String: String] = [:]

    /// Sets up `request` with the output's `timeout` and TLS settings; throws when libcurl
    /// refuses an option (no handle is left behind then: `deinit` cleans it).
    init(_ request: ServiceRequest, tag: Int, timeout: Duration, tls: OutputTLSConfig) throws(CurlError) {
        precondition(Curl.ready, "libcurl is not loaded or curl_global_init failed")
        guard let h = Curl.easyInit() else { throw CurlError(code: CURLE_OUT_OF_MEMORY, detail: "curl_easy_init") }
        handle = h
        self.tag = tag
        requestBody = .allocate(byteCount: max(request.body.count, 1), alignment: 1)
        requestBody.copyBytes(from: request.body)
        errorBuffer.initialize(to: 0)
        let ms = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        try CurlError.check(Curl.setString(h, CURLOPT_URL, request.url), "url")
        try CurlError.check(Curl.setPointer(h, CURLOPT_ERRORBUFFER, errorBuffer), "error buffer")
        try CurlError.check(Curl.setLong(h, CURLOPT_NOSIGNAL, 1), "nosignal")
        try CurlError.check(Curl.setLong(h, CURLOPT_TIMEOUT_MS, ms), "timeout")
        try CurlError.check(Curl.setLong(h, CURLOPT_CONNECTTIMEOUT_MS, ms), "connect timeout")
        // HTTP/2 over TLS when the server offers it in ALPN, HTTP/1.1 otherwise and on plain http.
        try CurlError.check(Curl.setLong(h, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)), "http version")
        try CurlError.check(Curl.setLong(h, CURLOPT_FOLLOWLOCATION, 0), "redirects")
        try CurlError.check(Curl.setString(h, CURLOPT_PROTOCOLS_STR, "http,https"), "protocols")
        try CurlError.check(Curl.setLong(h, CURLOPT_SSL_VERIFYPEER, tls.insecure ? 0 : 1), "verify peer")
        try CurlError.check(Curl.setLong(h, CURLOPT_SSL_VERIFYHOST, tls.insecure ? 0 : 2), "verify host")
        if let ca = tls.caFile { try CurlError.check(Curl.setString(h, CURLOPT_CAINFO, ca), "ca_file") }
        try CurlError.check(Curl.setString(h, CURLOPT_USERAGENT, "pushbridge"), "user agent")
        switch request.method {
        case "POST": try CurlError.check(Curl.setLong(h, CURLOPT_POST, 1), "post")
        case "GET": break
        default:
            try CurlError.check(Curl.setLong(h, CURLOPT_POST, 1), "post")
            try CurlError.check(Curl.setString(h, CURLOPT_CUSTOMREQUEST, request.method), "method")
        }
        if request.method != "GET" {
            try CurlError.check(Curl.setOffset(h, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)), "body size")
            try CurlError.check(Curl.setPointer(h, CURLOPT_POSTFIELDS, requestBody.baseAddress), "body")
        }
        // No `Expect: 100-continue` round trip for a large body; the caller's headers after it.
        headerList = Curl.slistAppend(headerList, "Expect:")
        for (name, value) in request.headers { headerList = Curl.slistAppend(headerList, "\(name): \(value)") }
        try CurlError.check(Curl.setSlist(h, CURLOPT_HTTPHEADER, headerList), "headers")
        let context = Unmanaged.passUnretained(self).toOpaque()
        try CurlError.check(Curl.setPointer(h, CURLOPT_WRITEDATA, context), "write data")
        try CurlError.check(Curl.setWrite(h, curlBodyCallback), "write function")
        try CurlError.check(Curl.setPointer(h, CURLOPT_HEADERDATA, context), "header data")
        try CurlError.check(Curl.setHeader(h, curlHeaderCallback), "header function")
    }

    deinit {
        Curl.easyCleanup(handle)
        Curl.slistFreeAll(headerList)
        errorBuffer.deallocate()
        requestBody.deallocate()
    }

    /// The answer, once the multi handle reported the transfer done with `result`.
    func answer(result: CURLcode) -> HTTPAnswer {
        guard result == CURLE_OK else {
            return .failed(CurlError(code: result, detail: String(cString: errorBuffer)))
        }
        var status = 0
        _ = Curl.getLong(handle, CURLINFO_RESPONSE_CODE, &status)
        var version = 0
        _ = Curl.getLong(handle, CURLINFO_HTTP_VERSION, &version)
        let text = version == Int(CURL_HTTP_VERSION_2_0) ? "2" : version == Int(CURL_HTTP_VERSION_3) ? "3" : "1.1"
        return .response(ServiceResponse(status: status, headers: headers, body: body, version: text))
    }

    /// Takes one header line as libcurl hands it over (CRLF included): the name lowercased
    /// (ASCII, as HTTP names are), the value without the spaces, tabs and line ends around it.
    /// Parsed in the bytes: only the name and the value become strings.
    fileprivate func addHeaderLine(_ line: UnsafeBufferPointer<UInt8>) {
        // A new status line (after `100 Continue` or a redirect) starts a new header block.
        if line.count >= 5, line[0] == UInt8(ascii: "H"), line[1] == UInt8(ascii: "T"), line[2] == UInt8(ascii: "T"),
           line[3] == UInt8(ascii: "P"), line[4] == UInt8(ascii: "/") {
            headers = [:]
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A }
        var start = colon + 1
        var end = line.count
        while start < end, isSpace(line[start]) { start += 1 }
        while end > start, isSpace(line[end - 1]) { end -= 1 }
        let name = String(unsafeUninitializedCapacity: colon) { out in
            for i in 0..<colon {
                let b = line[i]
                out[i] = b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b + 32 : b
            }
            return colon
        }
        headers[name] = String(decoding: UnsafeBufferPointer(rebasing: line[start..<end]), as: UTF8.self)
    }
}

/// CURLOPT_WRITEFUNCTION: keeps the first `ServiceResponse.bodyLimit` bytes, reads on past them.
private func curlBodyCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                              _ context: UnsafeMutableRawPointer?) -> Int {
    let total = size * count
    guard let data, let context else { return total }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let room = ServiceResponse.bodyLimit - transfer.body.count
    if room > 0 {
        data.withMemoryRebound(to: UInt8.self, capacity: total) { bytes in
            transfer.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: min(room, total)))
        }
    }
    return total
}

/// CURLOPT_HEADERFUNCTION: one header line per call.
private func curlHeaderCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                                _ context: UnsafeMutableRawPointer?) -> Int {
    let total = size * count
    guard let data, let context else { return total }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    data.withMemoryRebound(to: UInt8.self, capacity: total) {
        transfer.addHeaderLine(UnsafeBufferPointer(start: $0, count: total))
    }
    return total
}
