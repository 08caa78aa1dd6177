/// One HTTP request an output sends.
struct ServiceRequest: Sendable {
    var method: String
    var url: String
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []
}

/// What came back: a status with its headers and the start of the body, or a transport
/// failure (no answer at all: refused, timed out, TLS, DNS).
enum HTTPAnswer: Sendable {
    case response(ServiceResponse)
    case failed(CurlError)
}

/// An HTTP response (the last one, after any `100 Continue`).
struct ServiceResponse: Sendable {
    var status: Int
    /// Header names lowercased; a repeated header keeps its last value.
    var headers: [String: String]
    /// At most `ServiceResponse.bodyLimit` bytes of the body.
    var body: [UInt8]
    /// The protocol version curl used (`1.1`, `2`).
    var version: String

    /// Bytes of an answer's body kept (enough for any status message and feature detection).
    static let bodyLimit = 65_536
}
