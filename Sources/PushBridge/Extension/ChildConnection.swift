import Foundation
import Synchronization

/// One running child: its process and stdin, written on a serial queue.
///
/// `@unchecked Sendable`: `Process` is not `Sendable`; this class only reads its
/// `processIdentifier`, `isRunning`, `terminate()` and exit status, which Foundation guards
/// internally, and every use of `stdin` happens on `writeQueue`.
final class ChildConnection: @unchecked Sendable {
    let process: Process
    let generation: UInt64
    let startedAt = ContinuousClock.now
    private let stdin: FileHandle
    private let writeQueue = DispatchQueue(label: "pushbridge.extension.stdin")
    private let inputOpen = Mutex(true)

    init(process: Process, stdin: FileHandle, generation: UInt64) {
        self.process = process
        self.stdin = stdin
        self.generation = generation
    }

    /// Writes `line` and a newline; errors (a dead child) are ignored — its exit fails the requests.
    func write(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        writeQueue.async { [self] in
            guard inputOpen.withLock({ $0 }) else { return }
            let fd = stdin.fileDescriptor
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let n = Foundation.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                    if n < 0, errno == EINTR { continue }
                    if n <= 0 { return }
                    offset += n
                }
            }
        }
    }

    /// Closes stdin (after pending writes).
    func closeInput() {
        writeQueue.async { [self] in
            let wasOpen = inputOpen.withLock { open in
                defer { open = false }
                return open
            }
            if wasOpen { try? stdin.close() }
        }
    }

    /// Closes stdin and sends SIGTERM.
    func stop() {
        closeInput()
        if process.isRunning { process.terminate() }
    }
}

/// Reads newline-delimited text from a file descriptor until end of file.
enum LineReader {
    /// Calls `line` for each line (without the newline, a trailing CR dropped; invalid UTF-8 replaced).
    static func read(fd: Int32, line: (String) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var pending: [UInt8] = []
        while true {
            let n = buffer.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress!, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            var start = 0
            for i in 0..<n where buffer[i] == 0x0A {
                pending.append(contentsOf: buffer[start..<i])
                emit(&pending, line)
                start = i + 1
            }
            pending.append(contentsOf: buffer[start..<n])
        }
        if !pending.isEmpty { emit(&pending, line) }
    }

    private static func emit(_ bytes: inout [UInt8], _ line: (String) -> Void) {
        if bytes.last == 0x0D { bytes.removeLast() }
        line(String(decoding: bytes, as: UTF8.self))
        bytes.removeAll(keepingCapacity: true)
    }
}
