import Foundation

/// A notification request as an extension sees it, like Apple's `UNNotificationRequest`.
open class UNNotificationRequest: NSObject {
    /// The request's identifier: the collapse id when set, else the apns-id.
    public let identifier: String
    /// The content, as left by the steps before the extension.
    public let content: UNNotificationContent

    /// A request with `identifier` and `content`.
    public init(identifier: String, content: UNNotificationContent) {
        self.identifier = identifier
        self.content = content
        super.init()
    }
}

/// The object that rewrites or silences a notification before delivery, like Apple's class.
///
/// Subclass it and override ``didReceive(_:withContentHandler:)``; call the handler once
/// with the content to deliver, `UNNotificationContent()` to ask for suppression (honoured
/// only with the filtering entitlement and push type `alert`). The stage creates a new
/// instance per request through its ``ExtensionFactory`` and calls both methods of that
/// instance on one serial queue, so an instance never sees two threads at once; the content
/// handler itself may be called from any thread, any number of times (only the first call
/// counts). If the handler is not called within `extension.time_limit`, the stage calls
/// ``serviceExtensionTimeWillExpire()`` and waits `extension.expire_grace` for a last answer.
open class UNNotificationServiceExtension: NSObject {
    /// A new extension; the stage makes one per request through `ExtensionFactory.apple`.
    public override init() { super.init() }

    /// Asks the extension to produce the content to deliver. The default delivers `request.content`.
    open func didReceive(_ request: UNNotificationRequest,
                         withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        contentHandler(request.content)
    }

    /// Called once when the time limit passes without an answer: hand over a best attempt now.
    open func serviceExtensionTimeWillExpire() {}
}

/// The Swift-native, async form of a service extension.
///
/// Return the content to deliver (an empty `NotificationContent()` asks for suppression);
/// throwing counts as an extension failure (`extension.on_failure`). When the time limit
/// passes, the task running `didReceive` is cancelled — the async counterpart of
/// `serviceExtensionTimeWillExpire()` — and a result returned within the grace still counts.
public protocol NotificationServiceExtension: Sendable {
    /// The content to deliver for `request`, whose `content` is as left by the steps before.
    func didReceive(_ request: NotificationRequest) async throws -> NotificationContent
}

/// How the stage obtains the in-process extension for each request.
public struct ExtensionFactory: Sendable {
    enum Kind: Sendable {
        case apple(@Sendable () throws -> UNNotificationServiceExtension)
        case native(any NotificationServiceExtension)
    }
    let kind: Kind

    /// Apple's form: `make` builds a fresh subclass instance for each request (on the
    /// request's serial queue). A `make` that throws is an extension that failed to launch,
    /// which counts as an extension failure.
    public static func apple(_ make: @escaping @Sendable () throws -> UNNotificationServiceExtension) -> ExtensionFactory {
        ExtensionFactory(kind: .apple(make))
    }

    /// The async form: one shared value handles every request.
    public static func native(_ serviceExtension: any NotificationServiceExtension) -> ExtensionFactory {
        ExtensionFactory(kind: .native(serviceExtension))
    }
}
