import Foundation

/// The read end of libmosquitto's internal wake-up socket pair, found by watching which
/// sockets a connect call opens, so the network loop can drain it in one `recv`.
///
/// Why: libmosquitto (2.0.11) writes one byte to this pair for every packet it queues
/// (each publish, each PUBACK) and `mosquitto_loop` reads back one byte per turn. Once the
/// loop reads several packets per turn (see `ClientCore.readAvailable`), bytes pile up
/// faster than one per turn, and every later `select` returns at once until they are
/// gone: a busy loop. Draining the pair after each turn keeps `select` honest. No public
/// libmosquitto call exposes the descriptor (it is `mosq->sockpairR`).
///
/// Discovery: `mosquitto_connect*` closes the old pair and opens a new one
/// (`mosquitto__connect_init`). The sockets open before and after the call are compared by
/// descriptor *and inode* (a new pair may reuse the old numbers); the pair must be exactly
/// two new `AF_UNIX` stream sockets, and the read end is the lower descriptor
/// (`net__socketpair` returns `sv[0]` as the read end). Anything else gives `nil`, and the
/// loop keeps libmosquitto's one packet per turn. A wrong guess (another thread opening a
/// pair at the same instant while libmosquitto's failed) can only delay a wake-up by one
/// loop timeout; it loses nothing.
struct WakePair: Sendable {
    /// The read end of the pair.
    let readFD: Int32

    /// Runs `connect` (a `mosquitto_connect*` call) and finds the pair it opened.
    static func discover<T>(_ connect: () -> T) -> (T, WakePair?) {
        let before = openSockets()
        let result = connect()
        let added = openSockets().subtracting(before).filter { isUnixStreamSocket($0.fd) }.map(\.fd).sorted()
        return (result, added.count == 2 ? WakePair(readFD: added[0]) : nil)
    }

    /// Reads and discards every wake-up byte waiting (the socket is non-blocking).
    func drain() {
        var buffer = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        let size = MemoryLayout.size(ofValue: buffer)
        while true {
            let n = withUnsafeMutableBytes(of: &buffer) { recv(readFD, $0.baseAddress, size, Int32(MSG_DONTWAIT)) }
            if n < size { return }
        }
    }

    /// A descriptor and the inode behind it.
    struct OpenSocket: Hashable {
        var fd: Int32
        var inode: UInt
    }

    /// The process's open sockets (descriptors from `/proc/self/fd`).
    static func openSockets() -> Set<OpenSocket> {
        guard let dir = opendir("/proc/self/fd") else { return [] }
        defer { closedir(dir) }
        var sockets = Set<OpenSocket>()
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            var info = stat()
            guard let fd = Int32(name), fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else { continue }
            sockets.insert(OpenSocket(fd: fd, inode: UInt(info.st_ino)))
        }
        return sockets
    }

    /// `true` for a `AF_UNIX` `SOCK_STREAM` socket.
    static func isUnixStreamSocket(_ fd: Int32) -> Bool {
        var domain: Int32 = 0
        var type: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &length) == 0 else { return false }
        length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0 else { return false }
        return domain == AF_UNIX && type == Int32(SOCK_STREAM.rawValue)
    }
}
