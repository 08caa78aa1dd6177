import CMosquitto
import Foundation
import Testing
@testable import PushBridge

/// A connection whose socket is numbered past `FD_SETSIZE` (1024) works, on TLS too: the
/// network loop polls, it never uses select(2) (libmosquitto's `mosquitto_loop`, which the TLS
/// path once used, refuses such a socket with MOSQ_ERR_INVAL).
@Suite struct HighDescriptorTests {
    @Test(arguments: [false, true])
    func aClientWithASocketAbove1024(tls: Bool) async throws {
        let broker = try TestBroker(.init(tls: tls))
        let topic = uniqueName("high")
        var o = TestClient.options(broker, subscriptions: [MQTTSubscription(filter: topic, qos: 1)])
        if tls {
            o.port = try #require(broker.tlsPort)
            var config = TLSConfig()
            config.caFile = broker.caFile
            o.tls = config
        }
        // Fill the descriptors below 1100, so that the client's socket is numbered above them.
        // Tests running alongside may close descriptors between the filling and the connect,
        // and the socket then takes the hole: fill again and connect again (at most 5 times).
        var held: [Int32] = []
        defer { for fd in held { close(fd) } }
        var connected: (client: TestClient, socket: Int32)?
        for _ in 0..<5 where connected == nil {
            while true {
                let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
                try #require(fd >= 0, "open: \(errno)")
                held.append(fd)
                if fd >= 1100 { break }
            }
            let c = try TestClient(options: o)
            c.start()
            try await c.waitUntilSubscribed()
            let socket = mosquitto_socket(c.client.core.handle.raw)
            if socket > 1024 { connected = (c, socket) } else { c.stop() }
        }
        let (c, socket) = try #require(connected, "the socket never got a number above 1024 in 5 tries")
        #expect(socket > 1024, "socket \(socket)")
        try c.publish(topic, "above FD_SETSIZE", qos: 1)
        let got = try await c.waitForMessages(count: 1)
        #expect(got[0].payload == Array("above FD_SETSIZE".utf8))
        c.stop()
    }
}
