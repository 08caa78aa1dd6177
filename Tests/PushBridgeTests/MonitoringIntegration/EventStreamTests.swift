import Foundation
import Synchronization
import Testing
@testable import PushBridge
@testable import PushBridgeCLI

/// `/api/events`, `/api/stats`, `/` and `monitoring.trace_topic` on a running bridge and a
/// real mosquitto, read with a plain-socket SSE client (`EventStreamClient`).
@Suite("Monitoring integration: event stream and trace topic")
struct EventStreamTests {
    static let specKeys: Set<String> = ["at", "id", "topic", "route", "outcome", "decided_by", "rule", "reason"]

    static func config(_ broker: TestBroker, prefix p: String, http: Int, level: String = "info",
                       trace: String? = nil) -> String {
        brokerSection(broker, clientID: uniqueName("sse")) + """

        entitlements: [com.apple.developer.usernotifications.filtering]
        routes:
          - {name: doorbell, topic: "\(p)/door/#", alert: {title: "Door secret-title", body: "{{ payload.who }}"}}
          - {name: passthrough, topic: "\(p)/apns/#", input: apns}
        extension:
          filters:
            - {name: drop-test, suppress: "payload.test == true"}
        monitoring:
          interval: 1s
          http: "127.0.0.1:\(http)"
          log_level: \(level)
        \(trace.map { "  trace_topic: \($0)" } ?? "")
        """
    }

    /// Events until `count` decisions arrived (and every stats event on the way).
    static func collect(_ client: EventStreamClient, decisions count: Int,
                        timeout: Double = 20) throws -> (decisions: [JSONValue], stats: [JSONValue], raw: [String]) {
        var decisions: [JSONValue] = [], stats: [JSONValue] = [], raw: [String] = []
        let deadline = Date().timeIntervalSince1970 + timeout
        while decisions.count < count, Date().timeIntervalSince1970 < deadline {
            guard let e = try client.next(timeout: 1) else { continue }
            raw.append(e.data)
            let v = try decodeJSON(Array(e.data.utf8))
            if e.event == "decision" { decisions.append(v) } else if e.event == "stats" { stats.append(v) }
        }
        return (decisions, stats, raw)
    }

    @Test("a reader gets the snapshot every second and one decision object per message, with exactly the documented keys and no text")
    func decisionsAndStats() async throws {
        let broker = try TestBroker()
        let p = uniqueName("sse")
        let http = try LoopbackPorts.free()
        let bridge = try InProcessBridge.start(yaml: Self.config(broker, prefix: p, http: http))
        try await waitUntilReady(port: http)
        let client = try EventStreamClient(address: "127.0.0.1:\(http)")
        let first = try #require(try client.next(timeout: 10))
        #expect(first.event == "stats", "the first event is the current snapshot")

        let sender = try await TestClient.connected(to: broker)
        try sender.publish("\(p)/door/front", #"{"who":"Alice-secret"}"#)
        try sender.publish("\(p)/door/front", #"{"who":"Bob-secret","test":true}"#)
        try sender.publish("\(p)/apns/tv", "not an apns body secret")
        let got = try Self.collect(client, decisions: 3)
        try #require(got.decisions.count == 3, "decisions: \(got.raw)")
        for d in got.decisions { #expect(keys(d) == Self.specKeys, "\(d.jsonText)") }
        let byOutcome = Dictionary(got.decisions.map { ($0["outcome"]?.stringValue ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        let delivered = try #require(byOutcome["delivered"])
        #expect(delivered["topic"]?.stringValue == "\(p)/door/front" && delivered["route"]?.stringValue == "doorbell")
        #expect(delivered["id"]?.stringValue?.count == 36 && delivered["decided_by"] == .null && delivered["reason"] == .null)
        #expect(delivered["at"]?.stringValue?.hasSuffix("Z") == true)
        let suppressed = try #require(byOutcome["suppressed"])
        #expect(suppressed["decided_by"]?.stringValue == "drop-test")
        let rejected = try #require(byOutcome["rejected"])
        #expect(rejected["reason"]?.stringValue == "InvalidPayload" && rejected["route"]?.stringValue == "passthrough")
        for text in got.raw { #expect(!text.contains("secret"), "payload or notification text in an event: \(text)") }

        // More snapshots keep coming, each the stats-topic document; those after the last
        // decision event count it (a message is counted before its decision is offered).
        var later: [JSONValue] = []
        let deadline = Date().timeIntervalSince1970 + 20
        while later.count < 2, Date().timeIntervalSince1970 < deadline {
            if let e = try client.next(timeout: 1), e.event == "stats" { later.append(try decodeJSON(Array(e.data.utf8))) }
        }
        #expect(later.count >= 2 && got.stats.count + later.count >= 2)
        let snapshot = try #require(later.last)
        #expect(count(snapshot, "totals", "received") == 3)
        #expect(keys(snapshot).isSuperset(of: ["version", "started_at", "uptime_s", "connected", "in_flight", "totals", "topics",
                                               "routes", "filters", "latency_ms"]))
        // /api/stats: the same document, computed for the request.
        let stats = try httpGet(port: http, path: "/api/stats")
        #expect(stats.status == 200)
        let api = try decodeJSON(Array(stats.body.utf8))
        #expect(keys(api) == keys(snapshot) && count(api, "totals", "delivered") == 1 && count(api, "filters", "drop-test", "suppressed") == 1)
        // /api/history: the totals sampled once a second, for the rate chart.
        let history = try httpGet(port: http, path: "/api/history")
        guard case .array(let points) = try decodeJSON(Array(history.body.utf8)) else {
            Issue.record("/api/history: \(history.body)"); return
        }
        #expect(history.status == 200 && !points.isEmpty)
        // / is the page.
        let page = try rawHTTP("GET", "/", port: http)
        #expect(page.status == 200 && page.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(page.body.contains("<title>pushbridge</title>") && page.headers["content-security-policy"] != nil)
        let metrics = try httpGet(port: http, path: "/metrics").body
        #expect(metrics.contains("pushbridge_dashboard_readers 1"))

        // A clean stop with a reader attached ends its stream and returns.
        try await bridge.stop()
        var closed = false
        let end = Date().timeIntervalSince1970 + 20
        while !closed, Date().timeIntervalSince1970 < end {
            do { _ = try client.next(timeout: 1) } catch { closed = error == .closed }
        }
        #expect(closed, "the stream was not closed by the stop")
    }

    @Test("log_level: debug adds the notification text to decision objects")
    func debugAddsText() async throws {
        let broker = try TestBroker()
        let p = uniqueName("sse")
        let http = try LoopbackPorts.free()
        let bridge = try InProcessBridge.start(yaml: Self.config(broker, prefix: p, http: http, level: "debug"), level: .debug)
        try await waitUntilReady(port: http)
        let client = try EventStreamClient(address: "127.0.0.1:\(http)")
        let sender = try await TestClient.connected(to: broker)
        try sender.publish("\(p)/door/front", #"{"who":"Alice-secret"}"#)
        let got = try Self.collect(client, decisions: 1)
        try await bridge.stop()
        let d = try #require(got.decisions.first)
        #expect(d["body"]?.stringValue == "Alice-secret" && d["title"]?.stringValue == "Door secret-title")
        #expect(keys(d).isSuperset(of: Self.specKeys))
    }

    @Test("monitoring.trace_topic carries the same decision objects, QoS 0, not retained")
    func traceTopic() async throws {
        let broker = try TestBroker()
        let p = uniqueName("sse")
        let http = try LoopbackPorts.free()
        let trace = "\(p)-trace"
        let watcher = try await TestClient.connected(to: broker, subscriptions: [MQTTSubscription(filter: trace, qos: 1, noLocal: false)])
        defer { watcher.stop() }
        let bridge = try InProcessBridge.start(yaml: Self.config(broker, prefix: p, http: http, trace: trace))
        try await waitUntilReady(port: http)
        let client = try EventStreamClient(address: "127.0.0.1:\(http)")
        let sender = try await TestClient.connected(to: broker)
        try sender.publish("\(p)/door/front", #"{"who":"Alice-secret"}"#)
        try sender.publish("\(p)/door/front", #"{"who":"x","test":true}"#)
        let got = try Self.collect(client, decisions: 2)
        let traced = try await watcher.waitForMessages(count: 2, timeout: .seconds(20))
        try await bridge.stop()
        #expect(traced.allSatisfy { $0.qos == 0 && !$0.retain })
        let fromTrace = try traced.map { try decodeJSON($0.payload) }
        for d in fromTrace { #expect(keys(d) == Self.specKeys) }
        #expect(fromTrace.map(\.jsonText) == got.decisions.map(\.jsonText), "the trace topic and /api/events differ")
        #expect(!traced.contains { String(decoding: $0.payload, as: UTF8.self).contains("secret") })
        // A route that would read the trace topic is refused like one reading the display topic.
        let yaml = brokerSection(broker, clientID: "x") + "\nroutes: [{topic: \"#\"}]\ndisplay: {topic: \"d/{{ topic }}\"}\nmonitoring: {trace_topic: t/trace}\n"
        guard case .failure(let errors) = ConfigLoader.load(text: yaml, path: "bridge.yml", environment: [:]) else {
            Issue.record("a route on # with a trace topic was accepted"); return
        }
        #expect(errors.description.contains("trace messages"), "\(errors)")
    }

    /// A reader that never reads: it misses events (counted), the others do not, the
    /// offering thread is never held up, and the reader is closed once it stops taking bytes.
    @Test("a stuck reader is dropped behind, counted in pushbridge_dashboard_dropped_total, and closed")
    func stuckReader() async throws {
        let feed = DecisionFeed(includeText: false, traceTopic: nil, ringCapacity: 64)
        let server = try MetricsServer(address: "127.0.0.1:0", metrics: { feed.prometheusText() }, ready: { true },
                                       dashboard: DashboardEndpoints(feed: feed, snapshot: { Array(#"{"s":1}"#.utf8) }))
        defer { server.stop() }
        // The stuck reader: a small receive buffer, a request, and never a read.
        let stuck = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var small: Int32 = 4096
        setsockopt(stuck, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let sa = try HostPort(host: "127.0.0.1", port: server.port).socketAddresses()[0]
        let connected = sa.withSockaddr { connect(stuck, $0, $1) }
        try #require(connected == 0)
        defer { close(stuck) }
        let request = Array("GET /api/events HTTP/1.0\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(stuck, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        try await eventually("the stuck reader attached", timeout: .seconds(10)) { feed.readersAttached == 1 }
        nonisolated(unsafe) let reader = try EventStreamClient(address: "127.0.0.1:\(server.port)")  // read on one thread only
        try await eventually("the live reader attached", timeout: .seconds(10)) { feed.readersAttached == 2 }

        // Decisions (~300 bytes each) offered from another thread until the stuck reader is
        // closed, while a live reader reads on a third thread.
        let stop = Atomic<Bool>(false)
        let offered = Atomic<Int>(0)
        let offering = Thread {
            var i = 0
            while !stop.load(ordering: .relaxed) {
                feed.deliver(DecisionRecord(at: 0, id: "\(i)", topic: "t/\(i % 7)", route: "r", outcome: .delivered,
                                            decidedBy: nil, rule: String(repeating: "x", count: 200), reason: nil), client: nil)
                i += 1
                offered.store(i, ordering: .relaxed)
                if i % 200 == 0 { usleep(1000) }  // paces the offers (a steady producer), no synchronisation
            }
            feed.deliver(DecisionRecord(at: 0, id: "last", topic: "t", route: "r", outcome: .delivered,
                                        decidedBy: nil, rule: "", reason: nil), client: nil)
        }
        let liveCount = Atomic<Int>(0)
        let sawLast = Watched(false)
        let reading = Thread {
            let end = Date().timeIntervalSince1970 + 120
            while !sawLast.value, Date().timeIntervalSince1970 < end {
                guard let e = try? reader.next(timeout: 1) else { continue }
                guard e.event == "decision" else { continue }
                liveCount.add(1, ordering: .relaxed)
                if e.data.contains(#""id":"last""#) { sawLast.update { $0 = true } }
            }
        }
        reading.start()
        offering.start()
        try await eventually("the stuck reader missed events", timeout: .seconds(30)) { feed.dropped > 0 }
        let metrics = try httpGet(port: server.port, path: "/metrics").body
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("pushbridge_dashboard_dropped_total ") }
        #expect((Int(line?.split(separator: " ").last ?? "") ?? 0) > 0, "\(metrics)")
        // Closed when its socket takes nothing: libmicrohttpd's 10 s timeout without progress.
        try await eventually("the stuck reader closed", timeout: .seconds(60)) { feed.readersAttached == 1 }
        stop.store(true, ordering: .relaxed)
        try await sawLast.wait(for: "the live reader got the last decision", timeout: .seconds(30)) { $0 }
        #expect(liveCount.load(ordering: .relaxed) > 1000, "the live reader was starved")
        #expect(offered.load(ordering: .relaxed) > 1000)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var eof = false
        let readEnd = Date().timeIntervalSince1970 + 20
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(stuck, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while !eof, Date().timeIntervalSince1970 < readEnd {
            let n = recv(stuck, &buffer, buffer.count, 0)
            if n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) { eof = true }
        }
        #expect(eof, "the stuck reader's connection is still open")
    }

    @Test("at most 32 readers; the next gets 503; stopping the server ends every parked stream")
    func readerCapAndStop() async throws {
        let feed = DecisionFeed(includeText: false, traceTopic: nil)
        let server = try MetricsServer(address: "127.0.0.1:0", metrics: { feed.prometheusText() }, ready: { true },
                                       dashboard: DashboardEndpoints(feed: feed, snapshot: { Array("{}".utf8) }))
        var readers: [EventStreamClient] = []
        for _ in 0..<DecisionFeed.maxReaders {
            let r = try EventStreamClient(address: "127.0.0.1:\(server.port)")
            #expect(try r.next(timeout: 10)?.event == "stats")
            readers.append(r)
        }
        #expect(feed.readersAttached == DecisionFeed.maxReaders)
        let refused = try rawHTTP("GET", "/api/events", port: server.port)
        #expect(refused.status == 503 && refused.headers["retry-after"] == "10", "\(refused)")
        // The readers are parked now (nothing to send between snapshots); stop ends them all.
        server.stop()
        #expect(feed.readersAttached == 0)
        for r in readers {
            var closed = false
            let end = Date().timeIntervalSince1970 + 10
            while !closed, Date().timeIntervalSince1970 < end {
                do { _ = try r.next(timeout: 1) } catch { closed = true }
            }
            #expect(closed)
        }
    }
}
