import CMosquitto
import CSocketBuffers
import Foundation
import Testing

/// The QoS 0 PUBLISH packets the read-ahead buffer hands to the network thread itself
/// (`pb_readahead_publishes`, `pb_readahead_take_publish`): which packets it takes, that it
/// never takes a byte of a packet the reader (libmosquitto) has begun or must see, and what
/// it does to the reader's next read.
extension SocketBuffersTests {
    /// A PUBLISH packet: `qos`, `dup` and `retain` in the command byte, the topic with its
    /// two length bytes, a packet identifier above QoS 0, on MQTT 5 the properties' length
    /// and `properties`, then the payload.
    static func publish(_ topic: [UInt8], _ payload: [UInt8], qos: UInt8 = 0, retain: Bool = false, dup: Bool = false,
                        v5: Bool = true, properties: [UInt8] = []) -> [UInt8] {
        var body: [UInt8] = [UInt8(topic.count >> 8), UInt8(topic.count & 0xFF)] + topic
        if qos > 0 { body += [0x12, 0x34] }
        if v5 { body += [UInt8(properties.count)] + properties }
        body += payload
        var header: [UInt8] = [0x30 | (dup ? 0x08 : 0) | (qos << 1) | (retain ? 1 : 0)]
        var n = body.count
        repeat {
            let digit = UInt8(n & 0x7F)
            n >>= 7
            header.append(n > 0 ? digit | 0x80 : digit)
        } while n > 0
        return header + body
    }

    static func publish(_ topic: String, _ payload: String, qos: UInt8 = 0, retain: Bool = false,
                        v5: Bool = true, properties: [UInt8] = []) -> [UInt8] {
        publish(Array(topic.utf8), Array(payload.utf8), qos: qos, retain: retain, v5: v5, properties: properties)
    }

    /// MQTT 5 CONNACK: no session, success, no properties.
    static let connack: [UInt8] = [0x20, 0x03, 0x00, 0x00, 0x00]

    /// Reads one packet from `fd` as libmosquitto 2.0.11 does (the command byte, each length
    /// byte alone, then the body in one read); `nil` when a read comes back short or empty.
    func readAsLibmosquitto(_ fd: Int32) -> [UInt8]? {
        var packet: [UInt8] = []
        guard case let (1, command, _) = readBytes(fd, 1) else { return nil }
        packet += command
        var remaining = 0, shift = 0
        while true {
            guard case let (1, byte, _) = readBytes(fd, 1) else { return nil }
            packet += byte
            remaining |= Int(byte[0] & 0x7F) << shift
            shift += 7
            if byte[0] & 0x80 == 0 { break }
        }
        if remaining == 0 { return packet }
        let (n, body, _) = readBytes(fd, remaining)
        guard n == remaining else { return nil }
        return packet + body
    }

    /// What `pb_readahead_take_publish` took: topic, payload, retain, packet identifier (0 at
    /// QoS 0); `nil` when it took nothing. QoS 1 only when `acknowledge`.
    func take(acknowledge: Bool = false) -> (topic: [UInt8], payload: [UInt8], retain: Bool, mid: Int)? {
        var out = [Int](repeating: 0, count: 6)
        guard pb_readahead_take_publish(&out, acknowledge ? 1 : 0) == 1 else { return nil }
        let topic = Array(UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: out[0]), count: out[1]))
        let payload = Array(UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: out[2]), count: out[3]))
        return (topic, payload, out[4] != 0, out[5])
    }

    /// Attaches `a` on the calling thread with publishes at `protocol`, and lets the reader
    /// read the connection's first packet (a CONNACK) and then the EAGAIN of its short fill:
    /// the next take asks the kernel.
    func attachConnected(_ a: Int32, _ b: Int32, protocol: Int32 = 5) {
        #expect(pb_readahead_attach(a) == 0)
        pb_readahead_publishes(`protocol`)
        send(b, Self.connack)
        #expect(readAsLibmosquitto(a) == Self.connack)
        #expect(readBytes(a, 1).0 == -1)
    }

    @Test("MQTT 5: plain QoS 0 PUBLISH packets are taken whole, every other packet is left to the reader, in order")
    func takesPlainPublishesInOrder() throws {
        let (a, b) = try socketPair()
        defer { close(a); close(b) }
        onOwnThread { [self] in
            #expect(pb_readahead_attach(a) == 0)
            defer { pb_readahead_detach() }
            pb_readahead_publishes(5)
            let qos1 = Self.publish("q/1", "acknowledge me", qos: 1)
            let withProperty = Self.publish("p/1", "tagged", properties: [0x26, 0, 1, 0x6B, 0, 1, 0x76])  // user property k=v
            send(b, Self.connack + Self.publish("a/b", "hello", retain: true) + qos1 + Self.publish("c", "")
                 + withProperty + Self.publish("d e/f", "x"))
            // The connection's first packet is the reader's, whatever it is.
            #expect(take() == nil)
            #expect(readAsLibmosquitto(a) == Self.connack)
            let before = counts()
            let first = take()
            #expect(first?.topic == Array("a/b".utf8) && first?.payload == Array("hello".utf8) && first?.retain == true)
            #expect(take() == nil, "QoS 1 without acknowledge: the reader's")
            #expect(readAsLibmosquitto(a) == qos1)
            let empty = take()
            #expect(empty?.topic == Array("c".utf8) && empty?.payload == [] && empty?.retain == false)
            #expect(take() == nil, "properties: the reader's")
            #expect(readAsLibmosquitto(a) == withProperty)
            let last = take()
            #expect(last?.topic == Array("d e/f".utf8) && last?.payload == Array("x".utf8))
            // All of it came with the first fill, which was short: the socket was empty then, so
            // neither the next take nor the reader's next read asks the kernel.
            #expect(take() == nil)
            let (n, _, error) = readBytes(a, 1)
            #expect(n == -1 && error == EAGAIN)
            let after = counts()
            #expect(after.kernelReads == before.kernelReads, "no read(2) after the first fill")
        }
    }

    @Test("MQTT 3.1.1: no properties' length; a payload's leading zero byte is the payload's")
    func takesMQTT311Publishes() throws {
        let (a, b) = try socketPair()
        defer { close(a); close(b) }
        onOwnThread { [self] in
            attachConnected(a, b, protocol: 4)
            defer { pb_readahead_detach() }
            send(b, Self.publish(Array("t".utf8), [0, 1, 2], v5: false))
            let taken = take()
            #expect(taken?.topic == Array("t".utf8) && taken?.payload == [0, 1, 2])
        }
    }

    @Test("an empty buffer is filled with one read(2); an empty socket leaves the reader's next read to answer EAGAIN without one")
    func takeRefillsAnEmptyBuffer() throws {
        let (a, b) = try socketPair()
        defer { close(a); close(b) }
        onOwnThread { [self] in
            attachConnected(a, b)
            defer { pb_readahead_detach() }
            // The take asks the kernel, which has nothing.
            var before = counts()
            #expect(take() == nil)
            var after = counts()
            #expect(after.kernelReads - before.kernelReads == 1)
            // That empty answer is the reader's next read's too.
            before = after
            let (n, _, error) = readBytes(a, 1)
            #expect(n == -1 && error == EAGAIN)
            after = counts()
            #expect(after.kernelReads == before.kernelReads)
            // A PUBLISH arrives: one fill, one take.
            send(b, Self.publish("s/t", "42"))
            before = after
            #expect(take()?.payload == Array("42".utf8))
            after = counts()
            #expect(after.kernelReads - before.kernelReads == 1)
        }
    }

    @Test("never taken: a topic outside printable ASCII, an empty topic, DUP, QoS 2, another packet type; the reader gets it intact",
          arguments: [
              ("a topic with é", SocketBuffersTests.publish(Array("caf\u{E9}".utf8), Array("1".utf8))),
              ("a topic with a control character", SocketBuffersTests.publish([0x61, 0x09, 0x62], Array("1".utf8))),
              ("a topic with DEL", SocketBuffersTests.publish([0x61, 0x7F], Array("1".utf8))),
              ("an empty topic (a topic alias would name it)", SocketBuffersTests.publish([], Array("1".utf8), properties: [0x23, 0, 1])),
              ("an empty topic without properties", SocketBuffersTests.publish([], Array("1".utf8))),
              ("DUP set", SocketBuffersTests.publish(Array("t".utf8), Array("1".utf8), dup: true)),
              ("QoS 2", SocketBuffersTests.publish(Array("t".utf8), Array("1".utf8), qos: 2)),
              ("a PINGRESP", [0xD0, 0x00]),
              ("a SUBACK", [0x90, 0x04, 0x00, 0x01, 0x00, 0x00]),
          ] as [(String, [UInt8])])
    func leavesOtherPacketsToTheReader(_ what: String, _ packet: [UInt8]) throws {
        let (a, b) = try socketPair()
        defer { close(a); close(b) }
        onOwnThread { [self] in
            attachConnected(a, b)
            defer { pb_readahead_detach() }
            send(b, packet + Self.publish("after", "ok"))
            #expect(take() == nil, "\(what)")
            #expect(readAsLibmosquitto(a) == packet, "\(what)")
            #expect(take()?.topic == Array("after".utf8), "the next plain one is taken again")
        }
    }

    @Test("a packet not all here is the reader's, and so is everything until the reader has finished it")
    func leavesAPartialPacketToTheReader() throws {
        let (a, b) = try socketPair()
        defer { close(a); close(b) }
        onOwnThread { [self] in
            attachConnected(a, b)
            defer { pb_readahead_detach() }
            let long = Self.publish("long", String(repeating: "y", count: 300))
            send(b, Array(long.prefix(100)))
            #expect(take() == nil, "a third of it")
            // The reader begins it (command, two length bytes, the 97 body bytes there are) ...
            #expect(readBytes(a, 1).1 == [0x30])
            #expect(readBytes(a, 1).0 == 1)
            #expect(readBytes(a, 1).0 == 1)
            #expect(readBytes(a, long.count - 3).0 == 97)
            // ... and a whole plain one behind the rest of it is not taken while it is inside.
            send(b, Array(long.dropFirst(100)) + Self.publish("next", "n"))
            awaitReadable(a)
            #expect(readBytes(a, 1).0 == -1, "the short fill's EAGAIN")
            #expect(take() == nil, "the reader is inside a packet")
            #expect(readBytes(a, long.count - 100).0 == long.count - 100)
            #expect(take()?.topic == Array("next".utf8))
        }
    }

    @Test("off until asked, off again after a new attach, and off for good after a malformed length")
    func offUnlessAskedAndAfterAMalformedLength() throws {
        let (a, b) = try socketPair()
        defer { close(a); close(b) }
        onOwnThread { [self] in
            #expect(pb_readahead_attach(a) == 0)
            send(b, Self.connack + Self.publish("t", "1"))
            #expect(readAsLibmosquitto(a) == Self.connack)
            #expect(take() == nil, "not asked")
            pb_readahead_publishes(5)
            #expect(take()?.payload == Array("1".utf8))
            #expect(pb_readahead_attach(a) == 0)  // a new connection: off, and at its start
            send(b, Self.connack + Self.publish("t", "2"))
            #expect(readAsLibmosquitto(a) == Self.connack)
            #expect(take() == nil, "off after attach")
            #expect(readAsLibmosquitto(a) == Self.publish("t", "2"))
            #expect(readBytes(a, 1).0 == -1, "the short fill's EAGAIN")
            pb_readahead_publishes(5)
            // A length of five bytes is malformed (MQTT allows four): the reader closes the
            // connection; until then nothing is taken.
            send(b, [0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0x01] + Self.publish("t", "3"))
            #expect(take() == nil)
            for _ in 0..<6 { #expect(readBytes(a, 1).0 == 1) }
            #expect(take() == nil, "lost: the stream's packets are no longer known")
            pb_readahead_detach()
        }
    }

    @Test("each byte taken in a topic (printable ASCII) is one libmosquitto's UTF-8 check accepts; the control bytes around them it refuses")
    func printableASCIIIsWhatLibmosquittoAccepts() {
        for byte in UInt8(0x20)...UInt8(0x7E) {
            var c = CChar(bitPattern: byte)
            #expect(mosquitto_validate_utf8(&c, 1) == MOSQ_ERR_SUCCESS.rawValue, "byte \(byte)")
        }
        for byte in Array(UInt8(0x01)...UInt8(0x1F)) + [0x7F] {
            var c = CChar(bitPattern: byte)
            #expect(mosquitto_validate_utf8(&c, 1) != MOSQ_ERR_SUCCESS.rawValue, "byte \(byte)")
        }
    }
}

/// libmosquitto 2.0.11's reading of one packet across calls (`packet__read`): the command
/// byte, each length byte, then the body in reads of what is left, stopping at `EAGAIN` and
/// going on where it stopped at the next call.
struct LibmosquittoReader {
    var packet: [UInt8] = []
    var lengthDone = false
    var remaining = 0
    var shift = 0

    /// Reads on from `fd`: the packet once it is whole, `nil` when a read had nothing more.
    mutating func step(_ fd: Int32) -> [UInt8]? {
        func readSome(_ count: Int) -> [UInt8]? {
            var buffer = [UInt8](repeating: 0, count: count)
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, count) }
            return n > 0 ? Array(buffer.prefix(n)) : nil
        }
        if packet.isEmpty {
            guard let command = readSome(1) else { return nil }
            packet = command
        }
        while !lengthDone {
            guard let byte = readSome(1) else { return nil }
            packet += byte
            remaining |= Int(byte[0] & 0x7F) << shift
            shift += 7
            lengthDone = byte[0] & 0x80 == 0
        }
        while remaining > 0 {
            guard let bytes = readSome(remaining) else { return nil }
            packet += bytes
            remaining -= bytes.count
        }
        defer { self = LibmosquittoReader() }
        return packet
    }
}

extension SocketBuffersTests {
    /// One of the packets a broker sends a client, and whether a take may have it.
    static func randomPacket(_ rng: inout some RandomNumberGenerator) -> (bytes: [UInt8], takeable: Bool) {
        // Mostly small, sometimes past the 64 KiB buffer (never all there for a take).
        let count = Int.random(in: 0..<8, using: &rng) == 0 ? Int.random(in: 0...90_000, using: &rng) : Int.random(in: 0...300, using: &rng)
        // Made of plain PUBLISH packets: a take that looked inside a packet would find one.
        let decoy = publish(Array("d".utf8), [UInt8.random(in: 0...255, using: &rng)])
        let payload = (0..<count).map { decoy[$0 % decoy.count] }
        switch Int.random(in: 0..<8, using: &rng) {
        case 0, 1, 2: return (publish(Array("s/\(Int.random(in: 0...999, using: &rng))".utf8), payload), true)
        case 3: return (publish(Array("s/t".utf8), payload, retain: true), true)
        case 4: return (publish(Array("s/\u{E9}".utf8), payload), false)
        case 5: return (publish(Array("s/p".utf8), payload, properties: [0x0B, 0x01]), false)  // a subscription identifier
        case 6: return (publish(Array("s/q".utf8), payload, qos: 1), true)  // when acknowledged
        default: return (Bool.random(using: &rng) ? [0xD0, 0x00] : [0x90, 0x03, 0x00, 0x01, 0x00], false)
        }
    }

    @Test("a random stream of packets in random pieces: taken and read, each packet comes out once, whole, in order, and only takeable ones are taken",
          arguments: [1, 2, 3, 4])
    func randomStreamsComeOutWholeAndInOrder(seed: UInt64) throws {
        let (a, b) = try socketPair()
        defer { close(a); close(b) }
        onOwnThread { [self] in
            var rng = SeededGenerator(seed: seed)
            let packets = (0..<400).map { _ in Self.randomPacket(&rng) }
            let stream = Self.connack + packets.flatMap(\.bytes)
            var sentUpTo = 0
            #expect(pb_readahead_attach(a) == 0)
            defer { pb_readahead_detach() }
            pb_readahead_publishes(5)
            var reader = LibmosquittoReader()
            var acknowledged: [Int] = []
            var out: [(bytes: [UInt8], taken: Bool)] = []
            var rounds = 0
            while out.count < packets.count + 1, rounds < 100_000 {
                rounds += 1
                if sentUpTo < stream.count, Int.random(in: 0..<3, using: &rng) == 0 {
                    let piece = min(stream.count - sentUpTo, Int.random(in: 1...70_000, using: &rng))
                    let sent = stream.withUnsafeBytes { write(b, $0.baseAddress! + sentUpTo, piece) }
                    if sent > 0 { sentUpTo += sent }
                }
                if Bool.random(using: &rng), let taken = take(acknowledge: Bool.random(using: &rng)) {
                    if taken.mid != 0 { acknowledged.append(taken.mid) }
                    var bytes = Self.publish(taken.topic, taken.payload, qos: taken.mid == 0 ? 0 : 1, retain: taken.retain)
                    if bytes != packets[out.count - 1].bytes { bytes = [] }  // shown as a mismatch below
                    out.append((bytes, true))
                } else if let packet = reader.step(a) {
                    out.append((packet, false))
                }
            }
            #expect(out.count == packets.count + 1, "all packets out within the rounds (\(out.count) of \(packets.count + 1))")
            #expect(out.first?.bytes == Self.connack && out.first?.taken == false)
            var takenCount = 0
            for (i, (packet, came)) in zip(packets, out.dropFirst()).enumerated() {
                let same = came.bytes == packet.bytes  // not in the expectation: it would print both
                #expect(same, "packet \(i) (\(packet.bytes.count) bytes, \(Array(packet.bytes.prefix(4))) …) whole and in its place; came: \(came.bytes.count) bytes, \(Array(came.bytes.prefix(4))) …")
                if came.taken {
                    takenCount += 1
                    #expect(packet.takeable, "packet \(i) taken, but it is the reader's")
                }
            }
            #expect(takenCount > 0)
            // A PUBACK in the write-behind for each QoS 1 packet taken, in their order.
            #expect(pb_writebehind_pending() == 4 * acknowledged.count)
            #expect(pb_writebehind_flush() == 0)
            #expect(drain(b) == acknowledged.flatMap { [0x40, 0x02, UInt8($0 >> 8), UInt8($0 & 0xFF)] })
        }
    }
}

extension SocketBuffersTests {
    @Test("QoS 1 when asked to acknowledge: taken with its packet identifier, its PUBACK added to the write-behind; never with DUP or identifier 0, nor past the write-behind's limit")
    func takesQoS1WithItsAcknowledgement() throws {
        let (a, b) = try socketPair()
        defer { close(a); close(b) }
        onOwnThread { [self] in
            attachConnected(a, b)
            defer { pb_readahead_detach() }
            let qos1 = Self.publish("q/1", "one", qos: 1, retain: true)
            var dup = Self.publish("q/2", "two", qos: 1)
            dup[0] |= 0x08
            var zero = Self.publish("q/3", "three", qos: 1)
            zero[7] = 0  // the identifier: after the command, the length, the topic's length and "q/3"
            zero[8] = 0
            send(b, qos1 + dup + zero + Self.publish("q/4", "four", qos: 1))
            #expect(take() == nil, "not without acknowledge")
            let first = take(acknowledge: true)
            #expect(first?.topic == Array("q/1".utf8) && first?.payload == Array("one".utf8) && first?.retain == true && first?.mid == 0x1234)
            #expect(pb_writebehind_pending() == 4, "its PUBACK waits for the write step")
            #expect(drain(b).isEmpty)
            #expect(take(acknowledge: true) == nil, "DUP: the reader's")
            #expect(readAsLibmosquitto(a) == dup)
            #expect(take(acknowledge: true) == nil, "identifier 0: the reader's to refuse")
            #expect(readAsLibmosquitto(a) == zero)
            // The write step: the PUBACK goes first, before what the reader writes then.
            pb_writebehind_begin()
            send(a, [0xC0, 0x00])  // the reader's PINGREQ
            #expect(pb_writebehind_end() == 0)
            #expect(drain(b) == [0x40, 0x02, 0x12, 0x34, 0xC0, 0x00])
            #expect(take(acknowledge: true)?.payload == Array("four".utf8))
            #expect(pb_writebehind_flush() == 0)
            #expect(drain(b) == [0x40, 0x02, 0x12, 0x34])
        }
    }

    @Test("at most 128 PUBACKs wait for the write step; close sends none of them (the broker sends those messages again)")
    func waitingAcknowledgementsAreBoundedAndNotSentByClose() throws {
        let (a, b) = try socketPair()
        defer { close(b) }
        onOwnThread { [self] in
            attachConnected(a, b)
            send(b, (0..<129).flatMap { _ in Self.publish("q", "x", qos: 1) })
            for n in 0..<128 { #expect(take(acknowledge: true) != nil, "take \(n)") }
            #expect(take(acknowledge: true) == nil, "the 129th: the reader's")
            #expect(pb_writebehind_pending() == 128 * 4)
            pb_writebehind_begin()
            send(a, [0xC0, 0x00])  // a DISCONNECT-like last packet of the reader's, collected
            pb_writebehind_end()
            #expect(drain(b).count == 128 * 4 + 2, "the write step sends them")
            #expect(take(acknowledge: true) != nil, "room again")
            // Still in the read phase (the batch's callbacks have not committed): the connection
            // ends. What is pending goes (a packet we encoded), the waiting PUBACK does not.
            let packet: [UInt8] = [0xE0, 0x00]
            #expect(pb_writebehind_append(a, packet, packet.count) == 0)
            close(a)
            #expect(drain(b) == packet)
        }
    }
}

extension SocketBuffersTests {
    @Test("waiting PUBACKs join a write-behind already at its limit, after what is pending")
    func acknowledgementsPastTheWriteBehindLimit() throws {
        let (a, b) = try socketPair()
        defer { close(a); close(b) }
        onOwnThread { [self] in
            attachConnected(a, b)
            defer { pb_readahead_detach() }
            let filler = [UInt8](repeating: 7, count: 256 * 1024)
            #expect(pb_writebehind_append(a, filler, filler.count) == 0)
            #expect(pb_writebehind_append(a, [1], 1) == -1, "the write-behind is at its limit")
            send(b, Self.publish("q", "x", qos: 1))
            #expect(take(acknowledge: true) != nil)
            var sent: [UInt8] = []
            while pb_writebehind_flush() == 1 { sent += drain(b) }
            sent += drain(b)
            #expect(sent.count == filler.count + 4)
            #expect(Array(sent.suffix(4)) == [0x40, 0x02, 0x12, 0x34])
        }
    }
}
