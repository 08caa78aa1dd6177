import CMalloc
import CSocketBuffers
import Foundation
import PushBridge
import PushBridgeCLI

// The CLI: argument parsing and the commands; the pipeline lives in the PushBridge library.

// One malloc arena for the process, set before any thread allocates: glibc otherwise gives each
// thread that allocates an arena of its own, each keeping its own free pages (bench/README,
// "Issue 27, eleventh round": ~0.25 MB less peak RSS in the QoS 1 flood with the journal).
_ = mallopt(M_ARENA_MAX, 1)

// This executable, not the library, carries the socket buffers (Sources/CSocketBuffers):
// lent to every client made from now on, unless compiled out (a sanitizer build) or the
// linked libmosquitto is not one they were checked against.
if pb_socketbuffers_active() != 0 {
    MQTTClient.lendSocketBuffers(SocketBufferHooks(
        attach: pb_readahead_attach, detach: pb_readahead_detach, buffered: pb_readahead_buffered,
        beginWrites: pb_writebehind_begin, endWrites: pb_writebehind_end, pending: pb_writebehind_pending,
        captureBegin: pb_socketpair_capture_begin, captureEnd: pb_socketpair_capture_end, mute: pb_mute_writes,
        counts: pb_socketbuffers_counts, mutedWrites: pb_muted_writes,
        pollNanoseconds: pb_poll_nanoseconds, share: pb_writebehind_share,
        guestBegin: pb_writebehind_guest_begin, guestEnd: pb_writebehind_guest_end,
        guestWrites: pb_writebehind_guest_writes, append: pb_writebehind_append,
        readPublishes: pb_readahead_publishes, takePublish: pb_readahead_take_publish))
}

func printOut(_ s: String, newline: Bool = true) { FileHandle.standardOutput.write(Data((s + (newline ? "\n" : "")).utf8)) }
func printErr(_ s: String) { FileHandle.standardError.write(Data((s + "\n").utf8)) }

/// Prints `pushbridge: error: <message>` to stderr and returns `code` (the exit status).
func fail(_ code: Int32, _ message: String) -> Int32 {
    printErr("pushbridge: error: " + message)
    return code
}

let argv = Array(CommandLine.arguments.dropFirst())
if argv.isEmpty || argv == ["--help"] || argv == ["-h"] || argv == ["help"] {
    printOut(Usage.main)
    exit(argv.isEmpty ? 2 : 0)
}
if argv == ["--version"] || argv == ["version"] {
    printOut("pushbridge \(Bridge.version) (libmosquitto \(MQTTClient.libraryVersion))")
    exit(0)
}
if argv.first == "help", argv.count >= 2, argv[1] == "config" {
    exit(HelpConfigCommand.run(Array(argv.dropFirst(2))))
}
if argv.first == "help" {
    guard argv.count == 2, let text = Usage.commands[argv[1]] else {
        printErr("pushbridge: error: no help for '\(argv.dropFirst().joined(separator: " "))'; commands: \(Usage.commands.keys.sorted().joined(separator: ", "))")
        exit(2)
    }
    printOut(text)
    exit(0)
}

let args: Arguments
do {
    args = try Arguments(argv)
} catch {
    printErr("pushbridge: error: \(error.message)")
    printErr("run 'pushbridge --help' for usage")
    exit(2)
}

/// The config file named by -c, $PUSHBRIDGE_CONFIG or ./bridge.yml.
let configPath = args.value("-c") ?? ProcessInfo.processInfo.environment["PUSHBRIDGE_CONFIG"] ?? "bridge.yml"

/// Loads the config file; exits 2 with every error.
func loadConfig() -> BridgeConfig {
    let path = configPath
    switch ConfigLoader.load(path: path) {
    case .success(let config): return config
    case .failure(let errors):
        for e in errors.errors { printErr(e.description) }
        printErr("\(errors.errors.count) error\(errors.errors.count == 1 ? "" : "s") in \(path)")
        exit(2)
    }
}

switch args.command {
case "schema":
    printOut(ConfigSchema.text, newline: false)
    exit(0)
case "check":
    let config = loadConfig()
    for w in config.warnings { printErr(w.description) }
    printOut(config.describe())
    printOut("\(config.sourcePath): ok")
    exit(0)
case "try":
    exit(TryCommand.run(args, config: loadConfig(), path: configPath))
case "run":
    let config = loadConfig()
    exit(await RunCommand.run(config: config, path: configPath))
case "monitor":
    exit(await MonitorCommand.run(args, config: loadConfig()))
case "health":
    exit(HealthCommand.run(args, config: loadConfig()))
case "alerts":
    exit(AlertsCommand.run(args, config: loadConfig()))
case "ack":
    exit(AckCommand.run(args, config: loadConfig()))
case "people":
    exit(PeopleCommand.run(args, config: loadConfig()))
default:
    printErr("pushbridge: error: unknown command '\(args.command)'")
    exit(2)
}
