import CSocketBuffers
import Foundation
import Synchronization
import Testing

/// The read(2), write(2), close(2) and socketpair(2) that buffer the network thread's MQTT
/// socket and mute libmosquitto's wake-up pair (Sources/CSocketBuffers).
///
/// Built with AddressSanitizer or ThreadSanitizer (`make sanitize`) the buffers are compiled
/// out; these tests then skip, and `CompiledOutSocketBuffersTests` checks the stand-ins.
@Suite("Socket buffers", .serialized,
       .enabled(if: pb_socketbuffers_active() != 0, "compiled out under a sanitizer"))
struct SocketBuffersTests {
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

    /// Waits (at most 5 s) until `fd` is readable or at its end. Another test of this process
    /// that starts a child can hold a copy of a just-closed descriptor between its fork and its
    /// exec, so the peer's end of stream can come a moment after its `close`.
    func awaitReadable(_ fd: Int32) {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&entry, 1, 5_000) == 1, "readable or at its end within 5 s")
    }

    func readBytes(_ fd: Int32, _ count: Int) -> (Int, [UInt8], Int32) {
        var buffer = [UInt8](repeating: 0, count: count)
        errno = 0
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, count) }
        return (n, Array(buffer.prefix(max(n, 0))), errno)
    }

    /// The calling thread's (reads, read(2), writes, write(2)) on its attached sockets.
    func counts() -> (reads: UInt, kernelReads: UInt, writes: UInt, kernelWrites: UInt) {
        var c = [UInt](repeating: 0, count: 4)
        pb_socketbuffers_counts(&c)
        return (c[0], c[1], c[2], c[3])
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
            var after = counts()
            // The refill took less than the buffer holds (the socket was empty then): the
            // EAGAIN is answered without asking the kernel.
            #expect(after.kernelReads - before.kernelReads == 1, "one refill; the EAGAIN without a read(2)")
            #expect(after.reads - before.reads == 4)
            // The next read asks the kernel again (the loop polled in between).
            let (m, _, again) = readBytes(a, 1)
            #expect(m == -1 && again == EAGAIN)
            after = counts()
            #expect(after.kernelReads - before.kernelReads == 2)
            send(b, Array("x".utf8))
            #expect(readBytes(a, 1).1 == Array("x".utf8))
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
            // The refill was short: EAGAIN first, without the kernel (the loop's poll then
            // reports the socket readable), and the next read finds the end.
            let (n, _, error) = readBytes(a, 2)
            #expect(n == -1 && error == EAGAIN)
            awaitReadable(a)
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

    /// Everything readable from `fd` now (non-blocking), by the kernel.
    func drain(_ fd: Int32) -> [UInt8] {
        var all: [UInt8] = []
        while true {
            let (n, bytes, _) = readBytes(fd, 65_536)
            if n <= 0 { return all }
            all += bytes
        }
    }

    @Test("collected writes leave in one write at end, in order")
    func writeBehindCollectsAndFlushes() throws {
        let (a, b) = try socketPair()
        defer { close(a); close(b) }
        onOwnThread { [self] in
            #expect(pb_readahead_attach(a) == 0)
            defer { pb_readahead_detach() }
            let before = counts()
            pb_writebehind_begin()
            send(a, Array("one ".utf8))
            send(a, Array("two ".utf8))
            send(a, Array("three".utf8))
            #expect(pb_writebehind_pending() == 13)
            #expect(drain(b).isEmpty, "nothing reaches the peer before end")
            #expect(pb_writebehind_end() == 0)
            #expect(pb_writebehind_pending() == 0)
            #expect(drain(b) == Array("one two three".utf8))
            let after = counts()
            #expect(after.writes - before.writes == 3 && after.kernelWrites - before.kernelWrites == 1)
            send(a, Array("direct".utf8))  // not collecting: straight to the kernel
            #expect(drain(b) == Array("direct".utf8))
        }
    }

    @Test("past the limit a write reports EAGAIN; a full socket keeps the rest pending")
    func writeBehindLimitAndPartialFlush() throws {
        let (a, b) = try socketPair()
        defer { close(a); close(b) }
        onOwnThread { [self] in
            #expect(pb_readahead_attach(a) == 0)
            defer { pb_readahead_detach() }
            let chunk = [UInt8](repeating: 7, count: 100_000)
            pb_writebehind_begin()
            for _ in 0..<2 { send(a, chunk) }
            errno = 0
            let refused = chunk.withUnsafeBytes { write(a, $0.baseAddress, $0.count) }
            #expect(refused == -1 && errno == EAGAIN)
            var received: [UInt8] = []
            var result = pb_writebehind_end()
            while result == 1 {  // the socket took part of it
                received += drain(b)
                result = pb_writebehind_flush()
            }
            #expect(result == 0)
            received += drain(b)
            #expect(received.count == 200_000 && received.allSatisfy { $0 == 7 })
        }
    }

    @Test("appended packets go after what is pending, with the next flush; refused off the owner's socket or past the limit")
    func appendedPackets() throws {
        let (a, b) = try socketPair()
        let (c, d) = try socketPair()
        defer { close(a); close(b); close(c); close(d) }
        @Sendable func append(_ fd: Int32, _ bytes: [UInt8]) -> Int32 {
            bytes.withUnsafeBytes { pb_writebehind_append(fd, $0.baseAddress, $0.count) }
        }
        #expect(append(a, [1]) == -1, "this thread has no socket attached")
        onOwnThread { [self] in
            #expect(pb_readahead_attach(a) == 0)
            defer { pb_readahead_detach() }
            let before = counts()
            pb_writebehind_begin()
            send(a, Array("queued ".utf8))  // libmosquitto's packet, collected
            #expect(pb_writebehind_end() == 0 && drain(b) == Array("queued ".utf8))
            #expect(append(a, Array("ours ".utf8)) == 0)
            #expect(append(a, Array("and ours".utf8)) == 0)
            #expect(append(c, [1]) == -1 && append(a, []) == -1, "another socket; nothing")
            #expect(drain(b).isEmpty && pb_writebehind_pending() == 13, "held until the turn's flush")
            pb_writebehind_begin()
            send(a, Array(" then its".utf8))
            #expect(pb_writebehind_end() == 0)
            #expect(drain(b) == Array("ours and ours then its".utf8))
            let after = counts()
            #expect(after.writes - before.writes == 4 && after.kernelWrites - before.kernelWrites == 2)
            // Past the limit: refused whole, as a collected write would be.
            let chunk = [UInt8](repeating: 7, count: 200_000)
            #expect(append(a, chunk) == 0)
            #expect(append(a, chunk) == -1 && pb_writebehind_pending() == 200_000)
            var received: [UInt8] = []
            var result = pb_writebehind_flush()
            while result == 1 {
                received += drain(b)
                result = pb_writebehind_flush()
            }
            received += drain(b)
            #expect(result == 0 && received == chunk)
        }
    }

    /// A thread that attaches `fd` and hands out its buffers (`share`), then waits, with the
    /// socket still attached, until `finish` runs a last step there and ends it.
    final class Owner: @unchecked Sendable {
        let ready = DispatchSemaphore(value: 0)
        let resume = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        var share: UnsafeMutableRawPointer?
        var onResume: (@Sendable () -> Void)?

        init(attaching fd: Int32) {
            let thread = Thread { [self] in
                _ = pb_readahead_attach(fd)
                share = pb_writebehind_share()
                ready.signal()
                resume.wait()
                onResume?()
                pb_readahead_detach()
                done.signal()
            }
            thread.start()
            ready.wait()
        }

        /// Lets the owner thread run `body` (with the socket still attached), detach and end.
        func finish(_ body: @escaping @Sendable () -> Void = {}) {
            onResume = body
            resume.signal()
            done.wait()
        }
    }

    @Test("a guest thread collects into another thread's write-behind and sends it with one write")
    func guestWritesThroughTheOwnersBuffer() throws {
        let (a, b) = try socketPair()
        defer { close(a); close(b) }
        let owner = Owner(attaching: a)
        let shareBits = UInt(bitPattern: owner.share)
        onOwnThread { [self] in
            let share = UnsafeMutableRawPointer(bitPattern: shareBits)
            #expect(pb_writebehind_guest_begin(share, b) == -1, "not the socket the buffers hold")
            let before = pb_writebehind_guest_writes()
            let own = counts()
            #expect(pb_writebehind_guest_begin(share, a) == 0)
            #expect(pb_writebehind_guest_begin(share, a) == -1, "a guest already")
            send(a, Array("one ".utf8))
            send(a, Array("two".utf8))
            #expect(drain(b).isEmpty, "nothing reaches the peer before end")
            #expect(pb_writebehind_guest_end() == 0)
            #expect(drain(b) == Array("one two".utf8))
            #expect(pb_writebehind_guest_writes() - before == 1)
            let after = counts()
            #expect(after.writes == own.writes && after.kernelWrites == own.kernelWrites,
                    "the guest's own counts are for its own socket")
            send(a, Array("direct".utf8))  // not collecting: straight to the kernel
            #expect(drain(b) == Array("direct".utf8))
            #expect(pb_writebehind_guest_end() == 0, "ending without beginning does nothing")
        }
        owner.finish { #expect(pb_writebehind_pending() == 0) }
        #expect(pb_writebehind_guest_begin(nil, a) == -1)
    }

    @Test("what a full socket left of a guest's write waits for the owner, and blocks the next guest")
    func guestLeftoverStaysWithTheOwner() throws {
        let (a, b) = try socketPair()
        defer { close(a); close(b) }
        let owner = Owner(attaching: a)
        let shareBits = UInt(bitPattern: owner.share)
        var small: Int32 = 8192  // a send buffer that surely takes less than the chunk
        _ = setsockopt(a, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let chunk = [UInt8](repeating: 9, count: 200_000)
        onOwnThread { [self] in
            let share = UnsafeMutableRawPointer(bitPattern: shareBits)
            #expect(pb_writebehind_guest_begin(share, a) == 0)
            send(a, chunk)
            #expect(pb_writebehind_guest_end() == 1, "the socket takes less than 200 kB")
            #expect(pb_writebehind_guest_begin(share, a) == 1, "the rest still does not fit: nothing is collected")
            #expect(pb_writebehind_guest_end() == 0, "not a guest after a refusal")
        }
        // The owner's next flush sends the rest, in order after what the guest sent.
        let received = Mutex<[UInt8]>([])
        owner.finish { [self] in
            #expect(pb_writebehind_pending() > 0)
            var result = pb_writebehind_flush()
            while result == 1 {
                let got = drain(b)
                received.withLock { $0 += got }
                result = pb_writebehind_flush()
            }
            #expect(result == 0)
        }
        received.withLock { $0 += drain(b) }
        let all = received.withLock { $0 }
        #expect(all.filter { $0 == 9 }.count == 200_000)
    }

    @Test("close sends what is pending first (a buffered DISCONNECT is not lost)")
    func closeFlushes() throws {
        let (a, b) = try socketPair()
        defer { close(b) }
        onOwnThread { [self] in
            #expect(pb_readahead_attach(a) == 0)
            pb_writebehind_begin()
            send(a, [0xE0, 0x00])  // an MQTT DISCONNECT
            close(a)
            #expect(pb_readahead_buffered() == 0 && pb_writebehind_pending() == 0, "close detached")
        }
        #expect(drain(b) == [0xE0, 0x00])
        awaitReadable(b)
        #expect(readBytes(b, 1).0 == 0, "then end of stream")
    }

    @Test("a captured socket pair's write end is muted until it is closed")
    func mutedWakePair() throws {
        pb_socketpair_capture_begin()
        let (r, w) = try socketPair()
        #expect(pb_socketpair_capture_end() == w)
        #expect(pb_mute_writes(w) == 0)
        send(w, [1, 2, 3])           // succeeds without reaching the peer
        send(w, [4])
        #expect(drain(r).isEmpty)
        #expect(pb_muted_writes(w) == 2)
        close(w)                      // unmutes before the number can be reused
        let (r2, w2) = try socketPair()
        defer { close(r); close(r2); close(w2) }
        send(w2, [4])                 // maybe the same number as w: not muted any more
        #expect(drain(r2) == [4])
        #expect(pb_muted_writes(w2) == 0)
        #expect(pb_socketpair_capture_end() == -1, "nothing captured outside begin/end")
    }
}
