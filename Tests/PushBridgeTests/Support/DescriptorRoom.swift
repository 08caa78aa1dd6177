import Foundation

/// Waits until this process holds fewer than 900 open descriptors, so that a TLS client made
/// next gets descriptor numbers below `FD_SETSIZE` (1024).
///
/// libmosquitto's own loop, which pushbridge runs for TLS connections, uses `select()` and
/// fails with MOSQ_ERR_INVAL ("Invalid function arguments provided") for a socket numbered
/// 1024 or more; the whole suite, run in parallel, can hold over 1100 descriptors at its peak.
/// A workaround for tests that make TLS clients, until the TLS loop stops using `select()`.
func waitForDescriptorRoom(timeout: Duration = .seconds(120)) async throws {
    try await eventually("fewer than 900 open descriptors (TLS uses select())", timeout: timeout) {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count ?? 0) < 900
    }
}
