import Foundation
@testable import PushBridge

/// A stand-in MQTT 5 broker for one client, to see how many QoS 1 publishes the client keeps
/// unacknowledged: it serves the client's connections in turn, answering the i-th CONNECT with
/// a CONNACK that states `receiveMaxima[i]` (or, for `nil`, no Receive Maximum at all, as
/// mosquitto with `max_inflight_messages 0`). Every connection but the last is closed right
/// after its CONNACK; on the last it reads PUBLISH packets and acknowledges them only
/// `acknowledgeAt` at a time. A client that stops at its send maximum therefore stops there
/// for good when that maximum is below `acknowledgeAt`.
final class WindowBroker: Sendable {
    /// What the broker has seen.
    struct Counts: Sendable, Equatable {
        /// QoS 1 PUBLISH packets read.
        var received = 0
        /// The most publishes the client had unacknowledged at once.
        var mostUnacknowledged = 0
    }

    let port: Int
    /// Every change wakes the test's waits.
    let counts = Watched(Counts())
    private let listener: Int32

    /// Listens on a free loopback port and serves the connections on a thread of its own.
    init(receiveMaxima: [UInt16?], acknowledgeAt: Int) throws {
        port = try LoopbackPorts.free()
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = LoopbackPorts.loopback(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 1) == 0 else {
            if fd >= 0 { close(fd) }
            throw ProcessError(description: "window broker: cannot listen on \(port)")
        }
        listener = fd
        let listener = fd, counts = self.counts
        Thread.detachNewThread {
            for (i, maximum) in receiveMaxima.enumerated() {
                let fd = accept(listener, nil, nil)
                guard fd >= 0 else { return }
                defer { close(fd) }
                let last = i == receiveMaxima.count - 1
                Self.serve(fd, receiveMaximum: maximum, acknowledgeAt: last ? acknowledgeAt : nil, counts: counts)
            }
        }
    }

    deinit {
        stop()
        close(listener)
    }

    /// Stops listening; the client's connection ends when the client goes.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    /// The CONNACK, then packets until the connection ends; `acknowledgeAt` nil: only the CONNACK.
    private static func serve(_ fd: Int32, receiveMaximum: UInt16?, acknowledgeAt: Int?, counts: Watched<Counts>) {
        guard let connect = readPacket(fd), connect.kind & 0xF0 == 0x10 else { return }
        // Session present 0, success, then the properties.
        var connack: [UInt8] = [0x20, 0x03, 0x00, 0x00, 0x00]
        if let r = receiveMaximum { connack = [0x20, 0x06, 0x00, 0x00, 0x03, 0x21, UInt8(r >> 8), UInt8(r & 0xFF)] }
        guard write(fd, connack), let acknowledgeAt else { return }
        var unacknowledged: [[UInt8]] = []
        while let packet = readPacket(fd) {
            switch packet.kind & 0xF0 {
            case 0x30 where packet.kind & 0x06 != 0:
                // Topic name (length-prefixed), then the packet identifier.
                let topicLength = Int(packet.body[0]) << 8 | Int(packet.body[1])
                unacknowledged.append(Array(packet.body[(2 + topicLength)..<(4 + topicLength)]))
                counts.update { c in
                    c.received += 1
                    c.mostUnacknowledged = max(c.mostUnacknowledged, unacknowledged.count)
                }
                if unacknowledged.count >= acknowledgeAt {
                    guard write(fd, unacknowledged.flatMap { [0x40, 0x02] + $0 }) else { return }
                    unacknowledged.removeAll()
                }
            case 0xC0:
                guard write(fd, [0xD0, 0x00]) else { return }
            case 0xE0:
                return
            default:
                continue
            }
        }
    }

    /// One packet: its first byte and its body; nil when the connection ends.
    private static func readPacket(_ fd: Int32) -> (kind: UInt8, body: [UInt8])? {
        guard let kind = read(fd, 1)?.first else { return nil }
        var length = 0, shift = 0
        while true {
            guard let byte = read(fd, 1)?.first, shift <= 21 else { return nil }
            length |= Int(byte & 0x7F) << shift
            shift += 7
            if byte & 0x80 == 0 { break }
        }
        guard let body = read(fd, length) else { return nil }
        return (kind, body)
    }

    private static func read(_ fd: Int32, _ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + done, count - done, 0) }
            if n <= 0 { return nil }
            done += n
        }
        return bytes
    }

    private static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            done += n
        }
        return true
    }
}
