import CMosquitto
import Foundation

/// Installs the C callbacks of `handle`, each forwarding to the `ClientCore` passed to
/// `mosquitto_new` as `userdata`.
///
/// The callbacks run on the network thread with libmosquitto's `callback_mutex` held:
/// they must not call `*_callback_set`; subscribing from them is allowed.
enum MosquittoCallbacks {
    static func install(on handle: MosquittoHandle, forwardLogs: Bool) {
        let raw = handle.raw
        mosquitto_connect_v5_callback_set(raw) { _, context, rc, flags, _ in
            ClientCore.from(context).didConnect(code: rc, sessionPresent: flags & 1 == 1)
        }
        mosquitto_disconnect_v5_callback_set(raw) { _, context, rc, _ in
            ClientCore.from(context).didDisconnect(code: rc)
        }
        mosquitto_publish_v5_callback_set(raw) { _, context, mid, reason, _ in
            ClientCore.from(context).didPublish(mid: mid, reasonCode: reason)
        }
        mosquitto_message_v5_callback_set(raw) { _, context, message, properties in
            guard let message else { return }
            ClientCore.from(context).didReceive(message.pointee, properties: properties)
        }
        mosquitto_subscribe_v5_callback_set(raw) { _, context, mid, count, granted, _ in
            let codes = granted.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(count, 0)))) } ?? []
            ClientCore.from(context).didSubscribe(mid: mid, granted: codes)
        }
        mosquitto_unsubscribe_v5_callback_set(raw) { _, context, mid, _ in
            ClientCore.from(context).didUnsubscribe(mid: mid)
        }
        if forwardLogs {
            mosquitto_log_callback_set(raw) { _, context, level, text in
                // libmosquitto logs every packet at debug level: decide before copying the text.
                guard let text else { return }
                let core = ClientCore.forLog(context)
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

extension ClientCore {
    /// The core behind a callback's `userdata`. The network thread holds a strong
    /// reference for as long as libmosquitto can call back, so the unretained pointer is live.
    /// Counts the callback in `callbacksRun` (not for log lines, which are no packets).
    static func from(_ context: UnsafeMutableRawPointer?) -> ClientCore {
        let core = Unmanaged<ClientCore>.fromOpaque(context!).takeUnretainedValue()
        core.callbacksRun.add(1, ordering: .relaxed)
        return core
    }

    /// The core behind a log callback's `userdata`, not counted.
    static func forLog(_ context: UnsafeMutableRawPointer?) -> ClientCore {
        Unmanaged<ClientCore>.fromOpaque(context!).takeUnretainedValue()
    }
}
