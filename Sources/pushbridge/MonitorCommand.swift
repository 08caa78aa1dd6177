import Foundation
import PushBridge
import Synchronization

/// `pushbridge monitor`: a live per-topic table read from the bridge's live event stream
/// (`/api/events`, when `monitoring.http` is set and answers), else from the stats topic.
enum MonitorCommand {
    static func run(_ args: Arguments, config: BridgeConfig) async -> Int32 {
        guard let statsTopic = config.monitoring.statsTopic else {
            printErr("pushbridge: error: monitoring.stats_topic is not set; the bridge publishes no stats to read")
            return 2
        }
        let once = args.flags.contains("--once") || args.flags.contains("--json")
        let json = args.flags.contains("--json")
        let latest = Mutex<(bytes: [UInt8], seq: Int)?>(nil)
        let logger = Logger(level: .error)
        var options = MQTTClientOptions(config: config.broker, will: nil,
                                        subscriptions: [MQTTSubscription(filter: statsTopic, qos: 0, noLocal: false)])
        options.clientID = "\(config.broker.clientID)-monitor-\(getpid())"
        options.cleanStart = true
        options.sessionExpiry = .zero
        let handlers = MQTTClientHandlers(
            onMessage: { m in latest.withLock { $0 = (m.payload, ($0?.seq ?? 0) + 1) } },
            onPublished: { _ in },
            onConnection: { event in
                if case .connectFailed(let reason) = event { logger.error("monitor: \(reason)") }
            },
            log: { level, text in logger.log(level, text) })
        // The live stream first: a snapshot every second, so RATE/S is live.
        let live = config.monitoring.http.map { address in
            MonitorStream.start(address: address) { bytes in latest.withLock { $0 = (bytes, ($0?.seq ?? 0) + 1) } }
        } ?? false
        var client: MQTTClient?
        if !live {
            do {
                client = try MQTTClient(options: options, handlers: handlers)
            } catch {
                printErr("pushbridge: error: \(error)")
                return 1
            }
            client?.start()
        }
        defer { client?.stop(flushTimeout: .milliseconds(100)) }
        let sourceName = live ? "http://\(config.monitoring.http ?? "")/api/events" : "'\(statsTopic)'"

        if once {
            // The stats topic is retained: a running bridge's snapshot arrives right after SUBACK.
            let deadline = ContinuousClock.now + .seconds(10)
            var first: [UInt8]?
            while ContinuousClock.now < deadline {
                if first == nil, let got = latest.withLock({ $0 }) { first = got.bytes }
                if let got = latest.withLock({ $0 }) {
                    if live && !json && got.seq < 2 && ContinuousClock.now < deadline - .seconds(7) {
                        // A second live snapshot (a second later) gives RATE/S.
                        try? await Task.sleep(for: .milliseconds(50))
                        continue
                    }
                    if json {
                        printOut(String(decoding: got.bytes, as: UTF8.self))
                        return 0
                    }
                    guard let snapshot = parse(got.bytes) else {
                        printErr("pushbridge: error: the stats topic '\(statsTopic)' holds no pushbridge snapshot")
                        return 1
                    }
                    printOut(MonitorTable.render(current: snapshot, previous: live ? first.flatMap(parse) : nil,
                                                 width: terminalWidth(), now: Date().timeIntervalSince1970))
                    return 0
                }
                try? await Task.sleep(for: .milliseconds(50))
            }
            printErr("pushbridge: error: no snapshot on \(sourceName) at \(config.broker.host):\(config.broker.effectivePort) within 10 s (is the bridge running?)")
            return 1
        }

        // Live: redraw on every new snapshot and once a second (for "last seen"); Ctrl-C exits.
        signal(SIGINT, SIG_IGN)
        let interrupted = Atomic<Bool>(false)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { interrupted.store(true, ordering: .relaxed) }
        source.resume()
        let term = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
        signal(SIGTERM, SIG_IGN)
        term.setEventHandler { interrupted.store(true, ordering: .relaxed) }
        term.resume()
        var session = MonitorSession()
        var shownSeq = -1
        var current: StatsSnapshot?
        var lastDraw = ContinuousClock.now - .seconds(10)
        FileHandle.standardOutput.write(Data(MonitorSession.enter.utf8))
        while !interrupted.load(ordering: .relaxed) {
            if let got = latest.withLock({ $0 }), got.seq != shownSeq {
                shownSeq = got.seq
                current = parse(got.bytes)
                lastDraw = ContinuousClock.now - .seconds(10)
            }
            if ContinuousClock.now - lastDraw >= .seconds(1) {
                lastDraw = ContinuousClock.now
                let size = terminalSize()
                let frame: String
                if let current {
                    frame = session.frame(for: current, width: size.width, height: size.height,
                                          now: Date().timeIntervalSince1970)
                } else {
                    frame = MonitorSession.frame(["waiting for a snapshot on \(sourceName) at \(config.broker.host):\(config.broker.effectivePort)…",
                                                  "(Ctrl-C to quit)"])
                }
                FileHandle.standardOutput.write(Data(frame.utf8))
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        FileHandle.standardOutput.write(Data(MonitorSession.leave.utf8))
        source.cancel()
        term.cancel()
        return 0
    }

    static func parse(_ bytes: [UInt8]) -> StatsSnapshot? {
        guard let v = try? JSONValue.parse(bytes) else { return nil }
        return StatsSnapshot.parse(v)
    }

    static func terminalWidth() -> Int { terminalSize().width }

    /// The terminal's size, or 120×40 when standard output is not a terminal.
    static func terminalSize() -> (width: Int, height: Int) {
        var ws = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0 {
            return (Int(ws.ws_col), Int(ws.ws_row))
        }
        if let c = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init) { return (c, 40) }
        return (120, 40)
    }
}
