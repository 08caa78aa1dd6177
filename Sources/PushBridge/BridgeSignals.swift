import Foundation
import Synchronization

extension Bridge {
    /// Runs the bridge with the signal handling of `pushbridge run`: SIGTERM or SIGINT
    /// drains and returns; a second one exits the process at once (status 1); SIGHUP
    /// re-reads `configPath` (when given) through `reload(path:)`.
    ///
    /// A program that links the library and supplies its own extension calls this from
    /// `main` after building the bridge.
    public func runUntilSignalled(configPath: String?) async throws {
        for sig in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { signal(sig, SIG_IGN) }
        let seen = Atomic<Int>(0)
        var sources: [any DispatchSourceSignal] = []
        for sig in [SIGTERM, SIGINT] {
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            let logger = self.logger
            source.setEventHandler { [weak self] in
                if seen.add(1, ordering: .relaxed).oldValue == 0 {
                    logger.info("received \(sig == SIGTERM ? "SIGTERM" : "SIGINT"): draining")
                    self?.requestStop()
                } else {
                    logger.warning("second signal: exiting now")
                    exit(1)
                }
            }
            source.resume()
            sources.append(source)
        }
        if let configPath {
            let hup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
            let logger = self.logger
            hup.setEventHandler { [weak self] in
                logger.info("received SIGHUP: reloading \(configPath)")
                self?.reload(path: configPath)
            }
            hup.resume()
            sources.append(hup)
        }
        defer { sources.forEach { $0.cancel() } }
        try await run()
    }
}
