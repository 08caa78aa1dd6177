import CMosquitto
import Foundation

/// Installs the C callbacks of `handle`, each forwarding to the `ClientLoop` the network
/// thread sets as `userdata` while it runs.
///
/// The callbacks run on the network thread with libmosquitto's `callback_mutex` held:
/// they must not call `*_callback_set`; subscribing from them is allowed.
enum MosquittoCallbacks {
    static func install(on handle: MosquittoHandle, forwardLogs: Bool) {
        let raw = handle.raw
        mosquitto_connect_v5_callback_set(raw) { _, context, rc, flags, properties in
            guard let loop = ClientLoop.from(context) else { return }
            let sessionPresent = flags & 1 == 1
            if loop.core.didConnect(code: rc, sessionPresent: sessionPresent, properties: properties) {
                loop.handlers.onConnection(.connected(sessionPresent: sessionPresent))
            }
        }
        mosquitto_disconnect_v5_callback_set(raw) { _, context, rc, _ in
            ClientLoop.from(context)?.core.didDisconnect(code: rc)
        }
        mosquitto_publish_v5_callback_set(raw) { _, context, mid, reason, _ in
            guard let loop = ClientLoop.from(context) else { return }
            loop.core.didPublish(mid: mid, reasonCode: reason)
            loop.handlers.onPublished(mid)
        }
        mosquitto_message_v5_callback_set(raw) { _, context, message, properties in
            guard let message, let loop = ClientLoop.from(context) else { return }
            loop.core.didReceive(message.pointee, properties: properties, to: loop.handlers.onMessage)
        }
        mosquitto_subscribe_v5_callback_set(raw) { _, context, mid, count, granted, _ in
            let codes = granted.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(count, 0)))) } ?? []
            ClientLoop.from(context)?.core.didSubscribe(mid: mid, granted: codes)
        }
        mosquitto_unsubscribe_v5_callback_set(raw) { _, context, mid, _ in
            ClientLoop.from(context)?.core.didUnsubscribe(mid: mid)
        }
        if forwardLogs {
            mosquitto_log_callback_set(raw) { _, context, level, text in
                // libmosquitto logs every packet at debug level: decide before copying the text.
                guard let text, let core = ClientLoop.forLog(context) else { return }
                let ours = MosquittoCallbacks.logLevel(level)
                if core.wantsLibraryLog(ours) { core.log(ours, "libmosquitto: " + String(cString: text)) }
            }
        }
    }

    /// Our level for a libmosquitto `MOSQ_LOG_*` level.
    static func logLevel(_ mosquittoLevel: Int32) -> LogLevel {
        switch mosquittoLevel {
        case MOSQ_LOG_ERR: return .error
        case MOSQ_LOG_WARNING: return .warning
        case MOSQ_LOG_NOTICE, MOSQ_LOG_INFO: return .info
        default: return .debug
        }
    }
}
