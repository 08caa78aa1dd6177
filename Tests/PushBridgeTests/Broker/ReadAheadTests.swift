import CReadAhead
import Foundation
import Testing

/// The read(2) that serves the network thread's MQTT socket from a buffer (Sources/CReadAhead).
@Suite("Read-ahead", .serialized)
struct ReadAheadTests {
    /// A connected pair of non-blocking stream sockets, closed by the caller.
    func socketPair() throws -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw POSIXError(.EIO) }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        return (fds[0], fds[1])
    }

    func send(_ fd: Int32, _ bytes: [UInt8]) {
        #expect(bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count)
    }

    func readBytes(_ fd: Int32, _ count: Int) -> (Int, [UInt8], Int32) {
        var buffer = [UInt8](repeating: 0, count: count)
        errno = 0
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, count) }
        return (n, Array(buffer.prefix(max(n, 0))), errno)
    }

    func counts() -> (served: UInt, refills: UInt) {
        var served: UInt = 0
        var refills: UInt = 0
        pb_readahead_counts(&served, &refills)
        return (served, refills)
    }

    /// Runs `body` on a thread of its own (the buffer is per thread) and waits for it.
    func onOwnThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.start()
        done.wait()
    }

    @Test("one kernel read serves a packet read byte by byte; the end of the data is EAGAIN")
    func servesSmallReadsFromOneRefill() throws {
        let (a, b) = try socketPair()
        defer { close(a); close(b) }
        onOwnThread { [self] in
            #expect(pb_readahead_attach(a) == 0)
            defer { pb_readahead_detach() }
            let before = counts()
            send(b, Array("0123456789".utf8))
            #expect(readBytes(a, 1).1 == Array("0".utf8))
            #expect(pb_readahead_buffered() == 9)
            #expect(readBytes(a, 1).1 == Array("1".utf8))
            #expect(readBytes(a, 100).1 == Array("23456789".utf8))  // a short read: what is buffered
            #expect(pb_readahead_buffered() == 0)
            let (n, _, error) = readBytes(a, 1)
            #expect(n == -1 && error == EAGAIN)
            let after = counts()
            #expect(after.refills - before.refills == 1)
            #expect(after.served - before.served == 3)
        }
    }

    @Test("end of stream reads 0 once the buffer is empty")
    func endOfStream() throws {
        let (a, b) = try socketPair()
        defer { close(a) }
        onOwnThread { [self] in
            #expect(pb_readahead_attach(a) == 0)
            defer { pb_readahead_detach() }
            send(b, [1, 2, 3])
            close(b)
            #expect(readBytes(a, 2).1 == [1, 2])
            #expect(readBytes(a, 2).1 == [3])
            #expect(readBytes(a, 2).0 == 0)
        }
    }

    @Test("other threads and other descriptors read from the kernel; detach drops the buffer")
    func onlyTheOwnerThreadAndSocket() throws {
        let (a, b) = try socketPair()
        let (c, d) = try socketPair()
        defer { close(a); close(b); close(c); close(d) }
        send(b, Array("abcdef".utf8))
        onOwnThread { [self] in
            #expect(pb_readahead_attach(a) == 0)
            #expect(readBytes(a, 1).1 == Array("a".utf8))  // "bcdef" now in this thread's buffer
            // Another descriptor on the owner thread: the kernel.
            send(d, [9])
            #expect(readBytes(c, 4).1 == [9])
            #expect(pb_readahead_buffered() == 5)
            pb_readahead_detach()
            #expect(pb_readahead_buffered() == 0)
        }
        // This thread never attached: the kernel, which has nothing left (the owner took it all).
        let (n, _, error) = readBytes(a, 4)
        #expect(n == -1 && error == EAGAIN)
        send(b, Array("gh".utf8))
        #expect(readBytes(a, 4).1 == Array("gh".utf8))
    }
}
