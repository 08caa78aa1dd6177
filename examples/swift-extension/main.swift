// A program that links the PushBridge library and runs the bridge with its own
// notification service extension, written exactly as on Apple's platforms.
//
//   swift run pushbridge-example-extension bridge.yml
//
// Routes with `mutable_content: true` (the default) send their alerts through
// `NotificationService` below, after the declarative filters of `extension.filters`.
import Foundation
import PushBridge

/// Silences alerts whose user info says `"silent": true` (this needs the filtering
/// entitlement and push type `alert`, as on a device); prefixes the title of every
/// other alert with its thread.
final class NotificationService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest,
                             withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        if request.content.userInfo["silent"] as? Bool == true {
            contentHandler(UNNotificationContent())
            return
        }
        guard let content = request.content.mutableCopy() as? UNMutableNotificationContent else {
            contentHandler(request.content)
            return
        }
        if !content.threadIdentifier.isEmpty {
            content.title = "[\(content.threadIdentifier)] \(content.title)"
        }
        contentHandler(content)
    }

    override func serviceExtensionTimeWillExpire() {
        // Nothing is pending in this extension: the handler is always called at once.
    }
}

let path = CommandLine.arguments.dropFirst().first ?? "bridge.yml"
switch ConfigLoader.load(path: path) {
case .failure(let errors):
    for e in errors.errors { FileHandle.standardError.write(Data((e.description + "\n").utf8)) }
    exit(2)
case .success(let config):
    do {
        let bridge = try Bridge(config: config,
                                logger: BridgeLogger(level: config.monitoring.logLevel, format: config.monitoring.logFormat),
                                serviceExtension: .apple { NotificationService() })
        try await bridge.runUntilSignalled(configPath: path)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
}
