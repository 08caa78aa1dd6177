import PushBridge
import PushBridgeCLI

/// `pushbridge run`: the bridge until SIGTERM/SIGINT; SIGHUP reloads the file.
enum RunCommand {
    static func run(config: BridgeConfig, path: String) async -> Int32 {
        let logger = BridgeLogger(level: config.monitoring.logLevel, format: config.monitoring.logFormat)
        for w in config.warnings { logger.warning(w.description) }
        do {
            let bridge = try Bridge(config: config, logger: logger)
            try await bridge.runUntilSignalled(configPath: path)
            return 0
        } catch {
            logger.error("\(error)")
            return 1
        }
    }
}
