import Foundation
import Synchronization

/// The attachments' files (docs/attachments.md, "The store"): one folder per request,
/// named by its 128-bit random token, one file per attachment, `<identifier>.<ext>`.
///
/// Bounded by `keep` (older files are deleted and answer 404) and `totalBytes` (the oldest
/// are evicted first, counted). The index is rebuilt from the folder at start, so what a
/// pending delivery refers to survives a restart. Only files the index knows are ever
/// served: a request names a token and a file name, never a path.
final class AttachmentStore: Sendable {
    /// One stored file.
    struct Item: Sendable {
        var token: String
        var name: String
        var media: MediaType
        var size: Int
        var storedAt: Double
        var path: String
    }

    private struct State {
        /// By `token/name`.
        var items: [String: Item] = [:]
        /// Keys, oldest first.
        var order: [String] = []
        var bytes = 0
        var evicted = 0
        var expired = 0
        var keep: Duration
        var totalBytes: Int
    }

    /// The folder the files are in.
    let directory: String
    /// Removed when the store is closed (a private temporary folder without a journal).
    let temporary: Bool
    private let state: Mutex<State>
    private let clock: @Sendable () -> Double

    /// Opens the store in `directory` (made when missing) and indexes what an earlier run left.
    init(directory: String, keep: Duration, totalBytes: Int, temporary: Bool,
         clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) throws {
        self.directory = directory
        self.temporary = temporary
        self.clock = clock
        state = Mutex(State(keep: keep, totalBytes: totalBytes))
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        var found: [Item] = []
        for token in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where Self.isToken(token) {
            let folder = directory + "/" + token
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
                let path = folder + "/" + name
                guard let (_, media) = Self.parse(name: name),
                      let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                      let size = (attributes[.size] as? NSNumber)?.intValue,
                      let modified = attributes[.modificationDate] as? Date else { continue }
                found.append(Item(token: token, name: name, media: media, size: size,
                                  storedAt: modified.timeIntervalSince1970, path: path))
            }
        }
        found.sort { $0.storedAt < $1.storedAt }
        state.withLock { s in
            for item in found {
                let key = item.token + "/" + item.name
                s.items[key] = item
                s.order.append(key)
                s.bytes += item.size
            }
        }
        sweep()
    }

    /// A new request's token: 128 bits from the system's cryptographic generator, as 32 hex digits.
    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let (a, b) = (generator.next() as UInt64, generator.next() as UInt64)
        return String(format: "%016llx%016llx", a, b)
    }

    /// 32 lowercase hex digits.
    static func isToken(_ s: String) -> Bool {
        s.utf8.count == 32 && s.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    /// `snapshot.jpg` → (`snapshot`, `.jpeg`), when both parts are valid.
    static func parse(name: String) -> (identifier: String, media: MediaType)? {
        guard let dot = name.lastIndex(of: ".") else { return nil }
        let identifier = String(name[..<dot])
        guard ConfigReader.isAttachmentIdentifier(identifier),
              let media = MediaType(fileExtension: String(name[name.index(after: dot)...])) else { return nil }
        return (identifier, media)
    }

    /// Stores `bytes` as `identifier` of the request `token`; the stored item, or the error.
    func put(token: String, identifier: String, media: MediaType, bytes: [UInt8]) throws -> Item {
        sweep()
        let name = identifier + "." + media.fileExtension
        let folder = directory + "/" + token
        let path = folder + "/" + name
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let written = bytes.withUnsafeBytes { FileManager.default.createFile(atPath: path, contents: Data($0)) }
        guard written else { throw StoreError(description: "cannot write \(path)") }
        let item = Item(token: token, name: name, media: media, size: bytes.count, storedAt: clock(), path: path)
        let key = token + "/" + name
        let evicted = state.withLock { s -> [Item] in
            if let old = s.items[key] {
                s.bytes -= old.size
                s.order.removeAll { $0 == key }
            }
            s.items[key] = item
            s.order.append(key)
            s.bytes += item.size
            var out: [Item] = []
            while s.bytes > s.totalBytes, let first = s.order.first, first != key {
                s.order.removeFirst()
                if let gone = s.items.removeValue(forKey: first) {
                    s.bytes -= gone.size
                    s.evicted += 1
                    out.append(gone)
                }
            }
            return out
        }
        for gone in evicted { remove(gone) }
        return item
    }

    /// Why a file could not be stored.
    struct StoreError: Error, CustomStringConvertible {
        var description: String
    }

    /// The item served at `/attachments/<token>/<name>`, or `nil` (unknown, malformed or expired).
    func lookup(token: String, name: String) -> Item? {
        guard Self.isToken(token), Self.parse(name: name) != nil else { return nil }
        let now = clock()
        return state.withLock { s -> Item? in
            guard let item = s.items[token + "/" + name], now - item.storedAt <= s.keep.seconds else { return nil }
            return item
        }
    }

    /// What an output keeps to find a stored file again, `<token>/<name>`, from the file's
    /// path (`<directory>/<token>/<name>`); `nil` for a path of another shape.
    static func key(ofFile path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return nil }
        let (token, name) = (String(parts[parts.count - 2]), String(parts[parts.count - 1]))
        guard isToken(token), parse(name: name) != nil else { return nil }
        return token + "/" + name
    }

    /// The path of the file kept under `key` (`<token>/<name>`), or `nil` once it expired or
    /// was evicted (and for a key of another shape).
    func file(forKey key: String) -> String? {
        guard let slash = key.firstIndex(of: "/") else { return nil }
        return lookup(token: String(key[..<slash]), name: String(key[key.index(after: slash)...]))?.path
    }

    /// Deletes the files older than `keep`.
    func sweep() {
        let now = clock()
        let expired = state.withLock { s -> [Item] in
            let cutoff = now - s.keep.seconds
            var out: [Item] = []
            while let first = s.order.first, let item = s.items[first], item.storedAt < cutoff {
                s.order.removeFirst()
                s.items[first] = nil
                s.bytes -= item.size
                s.expired += 1
                out.append(item)
            }
            return out
        }
        for item in expired { remove(item) }
    }

    /// Takes a reloaded config's `keep` and `total_bytes` (the next store or sweep applies them).
    func update(keep: Duration, totalBytes: Int) {
        state.withLock { s in
            s.keep = keep
            s.totalBytes = totalBytes
        }
    }

    /// Bytes stored, files stored, files evicted for room and files expired so far.
    var counts: (bytes: Int, files: Int, evicted: Int, expired: Int) {
        state.withLock { ($0.bytes, $0.items.count, $0.evicted, $0.expired) }
    }

    /// Deletes the folder of a temporary store (a store in the journal's folder stays).
    func close() {
        if temporary { try? FileManager.default.removeItem(atPath: directory) }
    }

    private func remove(_ item: Item) {
        try? FileManager.default.removeItem(atPath: item.path)
        let folder = directory + "/" + item.token
        if (try? FileManager.default.contentsOfDirectory(atPath: folder))?.isEmpty ?? false {
            try? FileManager.default.removeItem(atPath: folder)
        }
    }
}
