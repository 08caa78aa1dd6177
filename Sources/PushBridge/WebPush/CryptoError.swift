import COpenSSL

/// A failed OpenSSL operation: what was being done and OpenSSL's own words for why.
package struct CryptoError: Error, Equatable, CustomStringConvertible {
    /// The step that failed (`ECDH`, `read VAPID key '/var/lib/pushbridge/vapid.pem'`, …).
    let operation: String
    /// OpenSSL's error queue as text (may be empty when OpenSSL gave no reason).
    package let reason: String

    /// One line for the log.
    package var description: String { reason.isEmpty ? "\(operation) failed" : "\(operation) failed: \(reason)" }

    /// The error for `operation`, taking (and clearing) this thread's OpenSSL error queue.
    static func openSSL(_ operation: String) -> CryptoError {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return CryptoError(operation: operation, reason: reasons.joined(separator: "; "))
    }

    /// Throws `openSSL(operation)` unless `result` is OpenSSL's success (1, or `> 0` when `positive`).
    static func check(_ result: Int32, _ operation: String) throws(CryptoError) {
        guard result > 0 else { throw openSSL(operation) }
    }
}
