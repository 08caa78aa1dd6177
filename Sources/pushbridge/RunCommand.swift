import Foundation
import PushBridge

/// `pushbridge run`: the bridge until SIGTERM/SIGINT.
enum RunCommand {
    static func run(config: BridgeConfig, path: String) async -> Int32 {
        let logger = Logger(level: config.monitoring.logLevel, format: config.monitoring.logFormat)
        let bridge = Bridge(config: config, logger: logger)
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        let signals = Signals()
        for sig in [SIGTERM, SIGINT] {
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                if signals.count() == 0 {
                    logger.info("received \(sig == SIGTERM ? "SIGTERM" : "SIGINT"): draining")
                    bridge.requestStop()
                } else {
                    logger.warning("second signal: exiting now")
                    exit(1)
                }
            }
            source.resume()
            signals.keep(source)
        }
        signal(SIGHUP, SIG_IGN)
        let hup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        hup.setEventHandler {
            logger.info("received SIGHUP: reloading \(path)")
            bridge.reload(path: path)
        }
        hup.resume()
        signals.keep(hup)
        do {
            try await bridge.run()
            return 0
        } catch {
            logger.error("\(error)")
            return 1
        }
    }
}

/// Counts signals and keeps the dispatch sources alive.
final class Signals: @unchecked Sendable {
    // Touched only under `lock`.
    private let lock = NSLock()
    private var seen = 0
    private var sources: [any DispatchSourceSignal] = []

    /// Returns how many signals came before this one, and counts this one.
    func count() -> Int {
        lock.lock(); defer { lock.unlock() }
        seen += 1
        return seen - 1
    }

    func keep(_ s: any DispatchSourceSignal) {
        lock.lock(); defer { lock.unlock() }
        sources.append(s)
    }
}
