import CMicroHTTPD
import Foundation

/// `GET /attachments/<token>/<identifier>.<ext>`: a stored attachment, sent from its file
/// (docs/attachments.md, "The store").
///
/// Only a file the store's index knows is ever opened: the path names a token and a file
/// name, both checked, never a path on disk. Unknown, malformed and expired ones are 404;
/// there is no listing. The URL is the capability, so the route needs no token of
/// `monitoring.http_auth`.
struct AttachmentDownloads: Sendable {
    /// The service whose store is served (it may come with a reload).
    let slot: AttachmentSlot

    /// `true` for a path this route answers.
    static func handles(_ path: String) -> Bool { path.hasPrefix(HTTPAccess.attachmentsPrefix) }

    /// The stored item for `path`, or `nil`.
    func item(for path: String) -> AttachmentStore.Item? {
        let rest = path.dropFirst(HTTPAccess.attachmentsPrefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard rest.count == 2, let store = slot.service?.store else { return nil }
        return store.lookup(token: String(rest[0]), name: String(rest[1]))
    }

    /// Queues the answer for `path` on `connection`: the file, or 404.
    func respond(method: String, path: String, on connection: OpaquePointer) -> MHD_Result {
        guard method == "GET" || method == "HEAD" else {
            return HTTPResponse(status: 405, body: "method not allowed\n", headers: [("Allow", "GET, HEAD")]).queue(on: connection)
        }
        guard let item = item(for: path), case .success(let table) = MicroHTTPD.functions else {
            return HTTPResponse(status: 404, body: "not found\n").queue(on: connection)
        }
        let fd = open(item.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return HTTPResponse(status: 404, body: "not found\n").queue(on: connection) }
        let mhd = table.functions
        guard let response = mhd.create_response_from_fd(UInt64(item.size), fd) else {
            close(fd)
            return .NO
        }
        defer { mhd.destroy_response(response) }
        _ = mhd.add_response_header(response, "Content-Type", item.media.mime)
        _ = mhd.add_response_header(response, "X-Content-Type-Options", "nosniff")
        _ = mhd.add_response_header(response, "Cache-Control", "private, max-age=3600")
        _ = mhd.add_response_header(response, "Content-Disposition", "inline; filename=\"\(item.name)\"")
        return mhd.queue_response(connection, 200, response)
    }
}
