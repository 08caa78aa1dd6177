import CCurl

/// A libcurl result code that is not `CURLE_OK`, with libcurl's own text for it.
struct CurlError: Error, CustomStringConvertible, Sendable {
    var code: UInt32
    /// `curl_easy_strerror`, and the transfer's error buffer when it says more.
    var message: String

    init(code: CURLcode, detail: String = "") {
        self.code = code.rawValue
        let text = Curl.easyStrerror(code)
        message = detail.isEmpty || detail == text ? text : "\(text): \(detail)"
    }

    var description: String { message }

    /// The one place a libcurl setup call's result becomes a thrown error.
    static func check(_ rc: CURLcode, _ what: String) throws(CurlError) {
        guard rc != CURLE_OK else { return }
        throw CurlError(code: rc, detail: what)
    }
}

/// libcurl, loaded with `dlopen` the first time an output needs it (see `Sources/CCurl`), and
/// its global state, initialised once before any handle is made (`curl_global_init` is not
/// thread safe itself, so every maker goes through `ready`).
enum Curl {
    /// The library's functions, or why they could not be loaded. `@unchecked Sendable`: the
    /// table is written once, here, and only read after (function pointers of libcurl's own).
    private struct Loaded: @unchecked Sendable {
        var table = pb_curl()
        var error: String?
    }
    private static let loaded: Loaded = {
        var loaded = Loaded()
        loaded.error = pb_curl_load(&loaded.table).map { String(cString: $0) }
        return loaded
    }()

    /// Why libcurl could not be loaded (`nil` when it was).
    static var loadError: String? { loaded.error }

    /// libcurl is loaded and initialised: handles can be made.
    static let ready: Bool = loaded.error == nil && loaded.table.global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// `libcurl/7.88.1 OpenSSL/3.0.x …`, or why it is not there.
    static var version: String {
        guard let version = loaded.table.version?() else { return "no libcurl (\(loaded.error ?? "not loaded"))" }
        return String(cString: version)
    }

    /// Calls `body` with the loaded table (for the typed wrappers of the variadic calls).
    private static func table<R>(_ body: (UnsafePointer<pb_curl>) -> R) -> R {
        withUnsafePointer(to: loaded.table, body)
    }

    static func easyStrerror(_ code: CURLcode) -> String {
        guard let text = loaded.table.easy_strerror?(code) else { return "libcurl error \(code.rawValue)" }
        return String(cString: text)
    }
    static func multiStrerror(_ code: CURLMcode) -> String {
        guard let text = loaded.table.multi_strerror?(code) else { return "libcurl multi error \(code.rawValue)" }
        return String(cString: text)
    }
    static func easyInit() -> UnsafeMutableRawPointer? { loaded.table.easy_init?() }
    static func easyCleanup(_ h: UnsafeMutableRawPointer) { loaded.table.easy_cleanup?(h) }
    static func setLong(_ h: UnsafeMutableRawPointer, _ o: CURLoption, _ v: Int) -> CURLcode {
        table { pb_curl_set_long($0, h, o, v) }
    }
    static func setString(_ h: UnsafeMutableRawPointer, _ o: CURLoption, _ v: String) -> CURLcode {
        table { t in v.withCString { pb_curl_set_string(t, h, o, $0) } }
    }
    static func setPointer(_ h: UnsafeMutableRawPointer, _ o: CURLoption, _ v: UnsafeMutableRawPointer?) -> CURLcode {
        table { pb_curl_set_pointer($0, h, o, v) }
    }
    static func setSlist(_ h: UnsafeMutableRawPointer, _ o: CURLoption, _ v: UnsafeMutablePointer<curl_slist>?) -> CURLcode {
        table { pb_curl_set_slist($0, h, o, v) }
    }
    static func setOffset(_ h: UnsafeMutableRawPointer, _ o: CURLoption, _ v: curl_off_t) -> CURLcode {
        table { pb_curl_set_offset($0, h, o, v) }
    }
    static func setWrite(_ h: UnsafeMutableRawPointer, _ f: pb_curl_data_callback) -> CURLcode {
        table { pb_curl_set_write($0, h, f) }
    }
    static func setHeader(_ h: UnsafeMutableRawPointer, _ f: pb_curl_data_callback) -> CURLcode {
        table { pb_curl_set_header($0, h, f) }
    }
    static func getLong(_ h: UnsafeMutableRawPointer, _ i: CURLINFO, _ v: inout Int) -> CURLcode {
        table { pb_curl_get_long($0, h, i, &v) }
    }
    static func multiSetLong(_ m: UnsafeMutableRawPointer, _ o: CURLMoption, _ v: Int) -> CURLMcode {
        table { pb_curl_multi_set_long($0, m, o, v) }
    }
    static func slistAppend(_ list: UnsafeMutablePointer<curl_slist>?, _ line: String) -> UnsafeMutablePointer<curl_slist>? {
        loaded.table.slist_append?(list, line)
    }
    static func slistFreeAll(_ list: UnsafeMutablePointer<curl_slist>?) { loaded.table.slist_free_all?(list) }
    /// `curl_getdate`: seconds since 1970, or -1 (also when libcurl is not there).
    static func getdate(_ text: String) -> Int { loaded.table.getdate.map { Int($0(text, nil)) } ?? -1 }
    static func multiInit() -> UnsafeMutableRawPointer? { loaded.table.multi_init?() }
    static func shareInit() -> UnsafeMutableRawPointer? { loaded.table.share_init?() }
    static func shareCleanup(_ s: UnsafeMutableRawPointer) { _ = loaded.table.share_cleanup?(s) }
    static func shareSetLong(_ s: UnsafeMutableRawPointer, _ o: CURLSHoption, _ v: Int) -> CURLSHcode {
        table { pb_curl_share_set_long($0, s, o, v) }
    }
    static func multiCleanup(_ m: UnsafeMutableRawPointer) { _ = loaded.table.multi_cleanup?(m) }
    static func multiAddHandle(_ m: UnsafeMutableRawPointer, _ h: UnsafeMutableRawPointer) -> CURLMcode {
        loaded.table.multi_add_handle?(m, h) ?? CURLM_INTERNAL_ERROR
    }
    static func multiRemoveHandle(_ m: UnsafeMutableRawPointer, _ h: UnsafeMutableRawPointer) {
        _ = loaded.table.multi_remove_handle?(m, h)
    }
    static func multiPerform(_ m: UnsafeMutableRawPointer, _ running: inout Int32) {
        _ = loaded.table.multi_perform?(m, &running)
    }
    static func multiInfoRead(_ m: UnsafeMutableRawPointer, _ left: inout Int32) -> UnsafeMutablePointer<CURLMsg>? {
        loaded.table.multi_info_read?(m, &left)
    }
    static func multiPoll(_ m: UnsafeMutableRawPointer, milliseconds: Int32, _ ready: inout Int32) {
        _ = loaded.table.multi_poll?(m, nil, 0, milliseconds, &ready)
    }
    static func multiWakeup(_ m: UnsafeMutableRawPointer) { _ = loaded.table.multi_wakeup?(m) }
}
