import Foundation

/// Handles process signals on a dispatch queue instead of in a signal handler: each of
/// `signals` is ignored by the process and reported to `handler` (any thread) until the
/// watch is cancelled or released.
final class SignalWatch: Sendable {
    private let sources: [SignalSource]

    /// A dispatch signal source (thread-safe: its methods may be called from any thread).
    private final class SignalSource: @unchecked Sendable {
        let source: any DispatchSourceSignal
        init(_ source: any DispatchSourceSignal) { self.source = source }
    }

    /// Starts watching `signals`.
    init(_ signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        sources = signals.map { sig in
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { handler(sig) }
            source.resume()
            return SignalSource(source)
        }
    }

    /// Stops reporting the signals (they stay ignored).
    package func cancel() {
        for s in sources { s.source.cancel() }
    }

    deinit { cancel() }
}
