import COpenSSL
import Foundation

/// The TLS leg of `pushbridge health` for an `https://` endpoint (`monitoring.tls`): OpenSSL's
/// client on the probe's non-blocking socket, every step bounded by the probe's deadline.
///
/// The certificate is not verified: the probe asks its own bridge (usually on loopback, where a
/// certificate made for a public name would not match), sends no secret and reads only the
/// status line.
enum HealthTLS {
    /// Handshakes on `fd`, sends `request`, and returns the answer's first line.
    static func statusLine(fd: Int32, host: String, request: [UInt8], deadline: UInt64) -> Result<String, HealthProblem> {
        guard let ctx = SSL_CTX_new(TLS_client_method()) else { return .failure(problem("TLS context")) }
        defer { SSL_CTX_free(ctx) }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nil)
        guard let ssl = SSL_new(ctx) else { return .failure(problem("TLS session")) }
        defer { SSL_free(ssl) }
        guard SSL_set_fd(ssl, fd) == 1 else { return .failure(problem("TLS socket")) }
        if !host.isEmpty, host.first?.isLetter == true { _ = pb_ssl_set_host_name(ssl, host) }
        if let failure = retry(ssl, fd, deadline, "TLS handshake", { SSL_connect(ssl) }) { return .failure(failure) }
        var offset = 0
        while offset < request.count {
            var written = 0
            let step = request[offset...].withUnsafeBytes { bytes in
                retry(ssl, fd, deadline, "TLS send", { SSL_write_ex(ssl, bytes.baseAddress, bytes.count, &written) })
            }
            if let step { return .failure(step) }
            offset += written
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1_024)
        while received.count < 8_192 {
            if let newline = received.firstIndex(of: UInt8(ascii: "\n")) { return .success(HealthProbe.line(received[..<newline])) }
            var got = 0
            let step = chunk.withUnsafeMutableBytes { bytes in
                retry(ssl, fd, deadline, "TLS read", { SSL_read_ex(ssl, bytes.baseAddress, bytes.count, &got) })
            }
            if step != nil || got == 0 {
                if received.isEmpty { return .failure(step ?? HealthProblem(reason: "the server closed the connection without an answer")) }
                return .success(HealthProbe.line(received[...]))
            }
            received += chunk[..<got]
        }
        return .failure(HealthProblem(reason: "the status line is longer than 8 KiB"))
    }

    /// Runs `call` until it succeeds (1), waiting on the socket while OpenSSL wants to read or
    /// write; the failure otherwise (OpenSSL's reason).
    private static func retry(_ ssl: OpaquePointer, _ fd: Int32, _ deadline: UInt64, _ step: String,
                              _ call: () -> Int32) -> HealthProblem? {
        while true {
            let rc = call()
            if rc == 1 { return nil }
            switch SSL_get_error(ssl, rc) {
            case SSL_ERROR_WANT_READ:
                if let p = HealthProbe.wait(fd, for: Int32(POLLIN), deadline: deadline, step: step) { return p }
            case SSL_ERROR_WANT_WRITE:
                if let p = HealthProbe.wait(fd, for: Int32(POLLOUT), deadline: deadline, step: step) { return p }
            case SSL_ERROR_ZERO_RETURN:
                return HealthProblem(reason: "\(step): the server closed the TLS connection")
            default:
                return problem(step)
            }
        }
    }

    /// `step` with OpenSSL's first queued reason (the queue emptied).
    private static func problem(_ step: String) -> HealthProblem {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return HealthProblem(reason: "\(step) failed (not a TLS server?)") }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return HealthProblem(reason: "\(step): \(text)")
    }
}
