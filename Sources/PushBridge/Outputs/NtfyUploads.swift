import Foundation
import Synchronization

/// What one ntfy output knows of its server's uploads, and the reading of the files it uploads.
///
/// A server takes uploads only with `attachment-cache-dir` (and `base-url`) in its config;
/// without them it answers an upload 400 with ntfy's error code 40014 ("attachments not
/// allowed"), and a file over its `attachment-file-size-limit` (or a visitor's quota) 413 with
/// code 41301. The first is remembered for good: no upload is tried again. The second is
/// remembered as a size: files that large or larger go as a link, smaller ones are still
/// uploaded. Both are learned from answers only, never assumed.
final class NtfyUploads: Sendable {
    private struct State {
        /// The server refuses every upload.
        var refused = false
        /// The smallest upload the server answered 413.
        var tooLarge: Int64?
    }

    private let output: String
    private let files: AttachmentFiles
    private let logger: BridgeLogger
    private let state = Mutex(State())
    /// A file that was gone has been logged at info (the later ones go to debug).
    private let goneLogged = Atomic<Bool>(false)

    /// The uploads of the output `output`, whose files `files` finds.
    init(output: String, files: AttachmentFiles, logger: BridgeLogger) {
        self.output = output
        self.files = files
        self.logger = logger
    }

    /// ntfy's error code for "attachments not allowed" (400).
    static let attachmentsNotAllowed: Int64 = 40014

    /// The bytes to upload for the file kept under `key` (`size` bytes, as the item says), read
    /// now; `nil` when the server does not take such an upload, or the file is no longer kept
    /// (expired or evicted: logged, the alert `item` then goes without its bytes).
    func bytes(of key: String, size: Int64?, item: String) -> [UInt8]? {
        let allowed = state.withLock { s in !s.refused && (s.tooLarge.map { (size ?? 0) < $0 } ?? true) }
        guard allowed else { return nil }
        guard let path = files.path(key), let data = FileManager.default.contents(atPath: path) else {
            let line = "output '\(output)': the attachment \(key) of \(item) is no longer stored (expired or evicted); sent without its bytes (as its URL when it has one)"
            if goneLogged.exchange(true, ordering: .relaxed) { logger.debug(line) } else { logger.info(line + " (more such: debug)") }
            return nil
        }
        return [UInt8](data)
    }

    /// Why `response` to an upload of `size` bytes says the server does not take it (and
    /// remembers it), or `nil` when the answer is about something else.
    func refused(_ response: ServiceResponse, size: Int64?) -> String? {
        let code: Int64? = if case .object(let o)? = try? JSONValue.parse(response.body) { o["code"]?.exactInteger } else { nil }
        if response.status == 400, code == Self.attachmentsNotAllowed {
            state.withLock { $0.refused = true }
            return "the ntfy server does not take uploads (400, code 40014: it needs attachment-cache-dir and base-url); "
                + "attachments go as their URL from now on"
        }
        if response.status == 413 {
            let size = size ?? 0
            state.withLock { $0.tooLarge = min($0.tooLarge ?? size, size) }
            return "the ntfy server refused an upload of \(size) bytes as too large (413\(code.map { ", code \($0)" } ?? "")); "
                + "attachments this large go as their URL from now on"
        }
        return nil
    }
}
