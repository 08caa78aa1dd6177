/// Where an output finds the bytes of an item's attachment when it sends them (ntfy's upload):
/// the path of the file the attachment store keeps under a key an item carries
/// (`OutputItem.files`), looked up when the delivery is sent, so a file that expired or was
/// evicted meanwhile is `nil` (the delivery then goes without it).
///
/// The composition root gives the store the bridge runs with (a reload may make the first one);
/// tests and a bridge without attachments have `none`.
struct AttachmentFiles: Sendable {
    /// The stored file's path for a key (`<token>/<identifier>.<ext>`), or `nil`.
    let path: @Sendable (String) -> String?

    /// No store: no file is found.
    static let none = AttachmentFiles { _ in nil }
}
