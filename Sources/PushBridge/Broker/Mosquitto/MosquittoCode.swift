import CMosquitto
import Foundation

/// The adapter's side of `MQTTError`: libmosquitto's return codes.
extension MQTTError {
    /// Turns a libmosquitto return code into a thrown error; success returns.
    ///
    /// This is the only place a raw return code becomes an `MQTTError`.
    static func check(_ rc: Int32) throws(MQTTError) {
        let code = MosquittoCode(rc)
        if code.isSuccess { return }
        switch code {
        case .noConnection: throw .notConnected
        default: throw .library(code: rc, message: code.description)
        }
    }
}

/// A libmosquitto return code (`enum mosq_err_t`) with its library description.
struct MosquittoCode: RawRepresentable, Equatable, Sendable, CustomStringConvertible {
    var rawValue: Int32
    init(rawValue: Int32) { self.rawValue = rawValue }
    init(_ rawValue: Int32) { self.rawValue = rawValue }

    static let success = MosquittoCode(Int32(MOSQ_ERR_SUCCESS.rawValue))
    static let noConnection = MosquittoCode(Int32(MOSQ_ERR_NO_CONN.rawValue))
    static let errno = MosquittoCode(Int32(MOSQ_ERR_ERRNO.rawValue))
    static let connectionLost = MosquittoCode(Int32(MOSQ_ERR_CONN_LOST.rawValue))

    /// `true` for `MOSQ_ERR_SUCCESS`.
    var isSuccess: Bool { self == .success }

    /// `mosquitto_strerror`, or the C library's `strerror(errno)` for `MOSQ_ERR_ERRNO`
    /// (read right away: the caller must not make other calls in between).
    var description: String {
        if self == .errno {
            let e = Foundation.errno
            return e == 0 ? "system error" : String(cString: strerror(e))
        }
        return String(cString: mosquitto_strerror(rawValue))
    }
}
