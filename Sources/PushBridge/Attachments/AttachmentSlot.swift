import Synchronization

/// The attachment service a running bridge uses, shared by what reads it (the stats, the
/// HTTP server) and replaced only by a reload that brings the first attachments.
final class AttachmentSlot: Sendable {
    private let slot: Mutex<AttachmentService?>

    init(_ service: AttachmentService?) { slot = Mutex(service) }

    /// The service, or `nil` while no route has had attachments.
    var service: AttachmentService? {
        get { slot.withLock { $0 } }
        set { slot.withLock { $0 = newValue } }
    }
}
