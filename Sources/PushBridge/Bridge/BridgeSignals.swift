import Foundation
import Synchronization

extension Bridge {
    /// Runs the bridge with the signal handling of `pushbridge run`: SIGTERM or SIGINT
    /// drains and returns; a second one exits the process at once (status 1); SIGHUP
    /// re-reads `configPath` (when given) through `reload(path:)`, one reload after the other
    /// (the SIGHUPs that arrive during a reload make one more reload after it).
    ///
    /// A program that links the library and supplies its own extension calls this from
    /// `main` after building the bridge.
    public func runUntilSignalled(configPath: String?) async throws {
        signal(SIGPIPE, SIG_IGN)
        if configPath == nil { signal(SIGHUP, SIG_IGN) }
        let seen = Atomic<Int>(0)
        let logger = self.logger
        let (hangups, hangup) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let reloads = Task { [weak self] in
            for await _ in hangups { if let self, let configPath { await reload(path: configPath) } }
        }
        let watch = SignalWatch([SIGTERM, SIGINT] + (configPath == nil ? [] : [SIGHUP])) { [weak self] sig in
            if sig == SIGHUP, let configPath {
                logger.info("received SIGHUP: reloading \(configPath)")
                hangup.yield()
            } else if seen.add(1, ordering: .relaxed).oldValue == 0 {
                logger.info("received \(sig == SIGTERM ? "SIGTERM" : "SIGINT"): draining")
                self?.requestStop()
            } else {
                logger.warning("second signal: exiting now")
                exit(1)
            }
        }
        defer {
            watch.cancel()
            hangup.finish()
            reloads.cancel()
        }
        try await run()
    }
}
