import Foundation
import Synchronization
import Testing
@testable import PushBridge

/// `ChildConnection` over real `/bin/sh` children, started with `Spawn` (`posix_spawn`):
/// lines both ways, how an exit reads, what the child inherits.
@Suite("External extension process: the child connection")
struct ChildConnectionTests {
    /// What one child gave back: its stdout lines, its stderr lines, and how it ended.
    final class Seen: Sendable {
        let lines = Mutex<[String]>([]), logs = Mutex<[String]>([]), how = Mutex<String?>(nil)

        func start(_ child: ChildConnection) {
            child.read(line: { l in self.lines.withLock { $0.append(l) } },
                       log: { l in self.logs.withLock { $0.append(l) } },
                       exited: { h in self.how.withLock { $0 = h } })
        }

        /// How the child ended, once `exited` ran (at most 10 s).
        func ended() async -> String? {
            for _ in 0..<1_000 {
                if let how = how.withLock({ $0 }) { return how }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return nil
        }
    }

    static func sh(_ script: String) throws -> (ChildConnection, Seen) {
        let child = try ChildConnection.spawn(["/bin/sh", "-c", script], generation: 1)
        let seen = Seen()
        seen.start(child)
        return (child, seen)
    }

    @Test func linesGoBothWaysAndTheExitStatusIsReported() async throws {
        let (child, seen) = try Self.sh(#"read a; read b; echo "got $a+$b"; echo "to stderr" >&2; exit 3"#)
        child.write("one")
        child.write("two")
        #expect(await seen.ended() == "status 3")
        #expect(seen.lines.withLock { $0 } == ["got one+two"])
        #expect(seen.logs.withLock { $0 } == ["to stderr"])
        #expect(!child.isRunning)
    }

    @Test func aProgramWithoutASlashIsFoundOnThePath() async throws {
        let child = try ChildConnection.spawn(["sh", "-c", "echo found"], generation: 2)
        let seen = Seen()
        seen.start(child)
        #expect(await seen.ended() == "status 0")
        #expect(seen.lines.withLock { $0 } == ["found"])
    }

    @Test func stopSendsSIGTERMAndTheSignalIsReported() async throws {
        // `exec sleep`: the shell is replaced, so SIGTERM ends the process that holds stdout.
        let (child, seen) = try Self.sh("echo ready; exec sleep 30")
        for _ in 0..<500 where seen.lines.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(child.isRunning)
        child.stop()
        #expect(await seen.ended() == "signal \(SIGTERM)")
        child.stop()   // a second stop after the reap signals nothing
    }

    @Test func theChildHasNoSignalBlockedOrIgnoredAndOnlyThreeDescriptors() async throws {
        // This thread may block signals and the bridge ignores SIGPIPE: neither reaches the child.
        signal(SIGPIPE, SIG_IGN)
        var term = sigset_t(), before = sigset_t()
        sigemptyset(&term)
        sigaddset(&term, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &term, &before)
        let spawned = Result { try Self.sh("grep -E '^Sig(Blk|Ign):' /proc/self/status; ls /proc/self/fd") }
        pthread_sigmask(SIG_SETMASK, &before, nil)
        let (_, seen) = try spawned.get()
        #expect(await seen.ended() == "status 0")
        let lines = seen.lines.withLock { $0 }
        // Masks of signals 1…31 (bit n − 1 for signal n); glibc keeps its own real-time ones.
        func mask(_ name: String) -> UInt64? {
            lines.first { $0.hasPrefix(name + ":\t") }.flatMap { UInt64($0.dropFirst(name.count + 2), radix: 16) }
        }
        #expect(mask("SigBlk").map { $0 & 0x7FFF_FFFF } == 0, "\(lines)")
        #expect(mask("SigIgn").map { $0 & 0x7FFF_FFFF } == 0, "\(lines)")
        // 0, 1, 2 and the descriptor `ls` opens to read the folder.
        let fds = lines.filter { $0.allSatisfy(\.isNumber) }.compactMap { Int($0) }
        #expect(fds.count == 4 && Array(fds.prefix(3)) == [0, 1, 2], "\(lines)")
    }

    @Test func anOutputHeldOpenByAGrandchildEndsTheWaitAfterTheGrace() async throws {
        let (_, seen) = try Self.sh("sleep 5 & exit 0")
        let started = ContinuousClock.now
        #expect(await seen.ended() == "status 0; its stdout is still open, held by a process it started")
        #expect(ContinuousClock.now - started >= ChildConnection.stdoutGrace - .milliseconds(100))
    }

    @Test func aMissingProgramThrowsWithTheReason() {
        #expect {
            _ = try ChildConnection.spawn(["/nonexistent/pushbridge-filter"], generation: 3)
        } throws: { error in
            "\(error)" == "cannot start /nonexistent/pushbridge-filter: No such file or directory"
        }
    }

    @Test func waitStatusesReadAsALogSays() {
        #expect(Spawn.describe(status: 0) == "status 0")
        #expect(Spawn.describe(status: 3 << 8) == "status 3")
        #expect(Spawn.describe(status: 255 << 8) == "status 255")
        #expect(Spawn.describe(status: SIGKILL) == "signal 9")
        #expect(Spawn.describe(status: SIGTERM | 0x80) == "signal 15")   // with a core dump
    }
}
