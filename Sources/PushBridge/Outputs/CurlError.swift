import CCurl

/// A libcurl result code that is not `CURLE_OK`, with libcurl's own text for it.
struct CurlError: Error, CustomStringConvertible, Sendable {
    var code: UInt32
    /// `curl_easy_strerror`, and the transfer's error buffer when it says more.
    var message: String

    init(code: CURLcode, detail: String = "") {
        self.code = code.rawValue
        let text = String(cString: curl_easy_strerror(code))
        message = detail.isEmpty || detail == text ? text : "\(text): \(detail)"
    }

    var description: String { message }

    /// The one place a libcurl setup call's result becomes a thrown error.
    static func check(_ rc: CURLcode, _ what: String) throws(CurlError) {
        guard rc != CURLE_OK else { return }
        throw CurlError(code: rc, detail: what)
    }
}

/// libcurl's global state: initialised once, before any handle is made (it is not thread
/// safe itself, so every maker goes through this `static let`).
enum CurlGlobal {
    static let ready: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// `libcurl/7.88.1 OpenSSL/3.0.x …`.
    static var version: String { String(cString: curl_version()) }
}
