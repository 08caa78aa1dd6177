import CSocketBuffers
import Foundation
import Testing

/// Under AddressSanitizer or ThreadSanitizer the socket buffers are compiled out
/// (Sources/CSocketBuffers/socketbuffers.c): the C library's calls are used and the
/// pb_* functions attach, buffer and mute nothing.
@Suite("Socket buffers compiled out",
       .enabled(if: pb_socketbuffers_active() == 0, "the buffers are compiled in (no sanitizer)"))
struct CompiledOutSocketBuffersTests {
    @Test("attaching buffers nothing: reads and writes go to the kernel, nothing is pending")
    func nothingIsBuffered() throws {
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        #expect(pb_readahead_attach(fds[0]) == 0)
        defer { pb_readahead_detach() }
        pb_writebehind_begin()
        let sent = Array("0123456789".utf8)
        #expect(sent.withUnsafeBytes { write(fds[0], $0.baseAddress, $0.count) } == sent.count)
        #expect(pb_writebehind_pending() == 0)
        #expect(pb_writebehind_end() == 0)
        var buffer = [UInt8](repeating: 0, count: 4)
        #expect(buffer.withUnsafeMutableBytes { read(fds[1], $0.baseAddress, 4) } == 4)
        #expect(pb_readahead_buffered() == 0)
        pb_socketpair_capture_begin()
        #expect(pb_socketpair_capture_end() == -1)
        #expect(pb_mute_writes(fds[1]) == -1)
        // No buffers to share: a guest is always refused and has written nothing.
        #expect(pb_writebehind_share() == nil)
        #expect([UInt8(1)].withUnsafeBytes { pb_writebehind_append(fds[0], $0.baseAddress, 1) } == -1)
        #expect(pb_writebehind_guest_begin(nil, fds[0]) == -1)
        #expect(pb_writebehind_guest_end() == 0)
        #expect(pb_writebehind_guest_writes() == 0)
    }
}
