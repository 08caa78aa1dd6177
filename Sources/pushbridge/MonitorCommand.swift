import Foundation
import PushBridge
import PushBridgeCLI

/// `pushbridge monitor`: a live per-topic table read from the bridge's live event stream
/// (`/api/events`, when `monitoring.http` is set and answers), else from the stats topic.
enum MonitorCommand {
    static func run(_ args: Arguments, config: BridgeConfig) async -> Int32 {
        guard let statsTopic = config.monitoring.statsTopic else {
            return fail(2, "monitoring.stats_topic is not set; the bridge publishes no stats to read")
        }
        let once = args.flags.contains("--once") || args.flags.contains("--json")
        let json = args.flags.contains("--json")
        // Everything the command waits for, in order: snapshots, its timers, Ctrl-C.
        let (events, post) = AsyncStream.makeStream(of: Event.self)
        let logger = BridgeLogger(level: .error)
        var options = MQTTClientOptions(config: config.broker, will: nil,
                                        subscriptions: [MQTTSubscription(filter: statsTopic, qos: 0, noLocal: false)])
        options.clientID = "\(config.broker.clientID)-monitor-\(getpid())"
        options.cleanStart = true
        options.sessionExpiry = .zero
        let handlers = MQTTClientHandlers(
            onMessage: { m in post.yield(.snapshot(m.payload)) },
            onPublished: { _ in },
            onConnection: { event in
                if case .connectFailed(let reason) = event { logger.error("monitor: \(reason)") }
            })
        // The live stream first: a snapshot every second, so RATE/S is live.
        let live = config.monitoring.http.map { address in
            MonitorStream.start(address: address, bearer: config.monitoring.httpAuth?.token?.text) { bytes in post.yield(.snapshot(bytes)) }
        } ?? false
        var client: MQTTClient?
        if !live {
            do {
                client = try MQTTClient(options: options, log: { level, text in logger.log(level, text) })
            } catch {
                return fail(1, "\(error)")
            }
            client?.start(handlers: handlers)
        }
        defer { client?.stop(flushTimeout: .milliseconds(100)) }
        let sourceName = live ? "http://\(config.monitoring.http.map(\.description) ?? "")/api/events" : "'\(statsTopic)'"

        if once {
            // The stats topic is retained: a running bridge's snapshot arrives right after SUBACK.
            // A second live snapshot (a second later) gives RATE/S: waited for during 3 s.
            DueTimer.after(.seconds(3)) { post.yield(.tick) }
            DueTimer.after(.seconds(10)) { post.finish() }
            var first: [UInt8]?
            var latest: [UInt8]?
            var count = 0
            var waitedForSecond = !live || json
            for await event in events {
                switch event {
                case .snapshot(let bytes):
                    count += 1
                    if first == nil { first = bytes }
                    latest = bytes
                case .tick: waitedForSecond = true
                case .interrupted: continue
                }
                guard let got = latest, count >= 2 || waitedForSecond else { continue }
                if json {
                    printOut(String(decoding: got, as: UTF8.self))
                    return 0
                }
                guard let snapshot = parse(got) else {
                    return fail(1, "the stats topic '\(statsTopic)' holds no pushbridge snapshot")
                }
                printOut(MonitorTable.render(current: snapshot, previous: live ? first.flatMap(parse) : nil,
                                             width: terminalWidth(), now: Date().timeIntervalSince1970))
                return 0
            }
            return fail(1, "no snapshot on \(sourceName) at \(config.broker.address) within 10 s (is the bridge running?)")
        }

        // Live: redraw on every new snapshot and on a one-second timer (for "last seen"); Ctrl-C exits.
        var sources: [any DispatchSourceProtocol] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { post.yield(.interrupted) }
            source.resume()
            sources.append(source)
        }
        let timer = DueTimer()
        timer.start { post.yield(.tick) }
        post.yield(.tick)
        timer.arm(every: .seconds(1))
        defer {
            timer.cancel()
            sources.forEach { $0.cancel() }
        }
        var session = MonitorSession()
        var current: StatsSnapshot?
        FileHandle.standardOutput.write(Data(MonitorSession.enter.utf8))
        loop: for await event in events {
            switch event {
            case .snapshot(let bytes): current = parse(bytes)
            case .tick: break
            case .interrupted: break loop
            }
            let size = terminalSize()
            let frame: String
            if let current {
                frame = session.frame(for: current, width: size.width, height: size.height,
                                      now: Date().timeIntervalSince1970)
            } else {
                frame = MonitorSession.frame(["waiting for a snapshot on \(sourceName) at \(config.broker.address)…",
                                              "(Ctrl-C to quit)"])
            }
            FileHandle.standardOutput.write(Data(frame.utf8))
        }
        FileHandle.standardOutput.write(Data(MonitorSession.leave.utf8))
        return 0
    }

    /// What `run` waits for.
    enum Event: Sendable {
        /// A stats snapshot's JSON arrived.
        case snapshot([UInt8])
        /// A timer fired.
        case tick
        /// SIGINT or SIGTERM.
        case interrupted
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
