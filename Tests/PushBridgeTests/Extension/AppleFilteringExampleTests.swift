import PushBridge
import Foundation
import Testing

// The class body is Apple's example from the documentation page of the entitlement
// "com.apple.developer.usernotifications.filtering", verbatim; only the import line differs
// (`import PushBridge` instead of `import UserNotifications`).
class NotificationService: UNNotificationServiceExtension {

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        
        // Determine whether you should suppress the notification.
        let suppress = myShouldSuppressNotification(request: request)
        
        if suppress {
            // Don't deliver the notification to the user.
            contentHandler(UNNotificationContent())
            
        } else {
            // Deliver the notification.
            guard let updatedContent = request.content.mutableCopy() as? UNMutableNotificationContent else {
                // This error should never occur.
                fatalError("Unable to create a mutable copy of the content")
            }
            
            // Update the notification's content, such as decrypting the body, here.
            contentHandler(updatedContent)
        }
    }
}

// Apple leaves `myShouldSuppressNotification` to the reader; this one suppresses when
// the custom key `suppress` is true.
extension NotificationService {
    func myShouldSuppressNotification(request: UNNotificationRequest) -> Bool {
        request.content.userInfo["suppress"] as? Bool == true
    }
}
