import CSocketBuffers
import Foundation
import Testing

/// `pb_poll_nanoseconds`: the sub-millisecond `ppoll` the network loop waits with while it
/// owes the broker a TCP ACK (NetworkThread.swift). Not replaced under a sanitizer: always on.
@Suite struct PollNanosecondsTests {
    @Test func readyDescriptorsAndTheTimeout() throws {
        var pair: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { pair.forEach { close($0) } }
        var fds = [pollfd(fd: pair[0], events: Int16(POLLIN), revents: 0)]

        // Nothing to read: returns 0, after the timeout (a lower bound: it cannot come back sooner).
        let start = ContinuousClock.now
        let none = fds.withUnsafeMutableBytes { pb_poll_nanoseconds($0.baseAddress, 1, 300_000) }
        #expect(none == 0)
        #expect(ContinuousClock.now - start >= .microseconds(290))

        // Something to read: 1, with POLLIN set.
        var byte: UInt8 = 7
        #expect(write(pair[1], &byte, 1) == 1)
        let one = fds.withUnsafeMutableBytes { pb_poll_nanoseconds($0.baseAddress, 1, 1_000_000_000) }
        #expect(one == 1)
        #expect(fds[0].revents & Int16(POLLIN) != 0)

        // More than a second is split into seconds and nanoseconds (ppoll refuses tv_nsec >= 1e9).
        fds[0].revents = 0
        let long = fds.withUnsafeMutableBytes { pb_poll_nanoseconds($0.baseAddress, 1, 1_500_000_000) }
        #expect(long == 1)
        // A bad descriptor is reported in revents, as poll does.
        var bad = [pollfd(fd: -1, events: Int16(POLLIN), revents: 0), pollfd(fd: 1_000_000, events: Int16(POLLIN), revents: 0)]
        let invalid = bad.withUnsafeMutableBytes { pb_poll_nanoseconds($0.baseAddress, 2, 1000) }
        #expect(invalid == 1)
        #expect(bad[1].revents & Int16(POLLNVAL) != 0)
    }
}
