import Foundation
import Synchronization
import Testing
@testable import PushBridge

@Suite("Worker")
struct WorkerTests {
    final class Log: Sendable {
        let entries = Mutex<[Int]>([])
        func add(_ n: Int) { entries.withLock { $0.append(n) } }
        var all: [Int] { entries.withLock { $0 } }
    }

    final class Names: Sendable {
        let names = Mutex<[String]>([])
        func add() {
            let name = WorkerTests.threadName()
            names.withLock { $0.append(name) }
        }
        var all: [String] { names.withLock { $0 } }
    }

    /// The calling thread's name as the system knows it (Linux: what `top -H` and gdb show).
    static func threadName() -> String {
        let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        return comm.trimmingCharacters(in: .newlines)
    }

    @Test("a job runs on the named thread; stop then join returns once the thread is done")
    func startStopJoin() {
        let worker = Worker(name: "test-worker")
        let names = Names()
        #expect(worker.submit { names.add() })
        worker.stop()
        #expect(worker.join(until: .now + .seconds(30)))
        #expect(names.all == ["test-worker"])
        #expect(worker.join(until: .now))  // a second join returns at once
        #expect(!worker.isCurrent)
    }

    @Test("a worker that never had a job stops and joins at once")
    func neverStarted() {
        let worker = Worker(name: "test-idle")
        worker.stop()
        #expect(worker.join(until: .now))
        #expect(!worker.submit {})
    }

    @Test("jobs run one at a time, in the order they were submitted")
    func order() {
        let worker = Worker(name: "test-order")
        let log = Log()
        let running = Atomic<Int>(0), overlapped = Atomic<Bool>(false)
        for n in 0..<200 {
            worker.submit {
                if running.add(1, ordering: .sequentiallyConsistent).newValue > 1 {
                    overlapped.store(true, ordering: .sequentiallyConsistent)
                }
                log.add(n)
                running.subtract(1, ordering: .sequentiallyConsistent)
            }
        }
        worker.stop()
        #expect(worker.join(until: .now + .seconds(30)))
        #expect(log.all == Array(0..<200))
        let overlaps = overlapped.load(ordering: .sequentiallyConsistent)
        #expect(!overlaps)
    }

    @Test("stop with jobs pending: those submitted before it still run, later ones are refused")
    func stopWithPending() {
        let worker = Worker(name: "test-pending")
        let release = DispatchSemaphore(value: 0)
        let log = Log()
        worker.submit { release.wait(); log.add(0) }
        for n in 1...3 { worker.submit { log.add(n) } }
        worker.stop()
        #expect(worker.isStopping)
        #expect(!worker.submit { log.add(99) })
        release.signal()
        #expect(worker.join(until: .now + .seconds(30)))
        #expect(log.all == [0, 1, 2, 3])
    }

    @Test("stop and join from inside a job do not deadlock: join returns false at once there")
    func stopFromInside() {
        let worker = Worker(name: "test-inside")
        let inside = Mutex<(current: Bool, joined: Bool)?>(nil)
        worker.submit {
            worker.stop()
            let joined = worker.join()  // unbounded, but its own thread: returns at once
            inside.withLock { $0 = (worker.isCurrent, joined) }
        }
        #expect(worker.join(until: .now + .seconds(30)))
        let seen = inside.withLock { $0 }
        #expect(seen?.current == true)
        #expect(seen?.joined == false)
    }

    @Test("join with a deadline returns false when a job is still running after it")
    func joinBounded() {
        let worker = Worker(name: "test-bounded")
        let release = DispatchSemaphore(value: 0)
        worker.submit { release.wait() }
        worker.stop()
        let began = ContinuousClock.now
        #expect(!worker.join(until: .now + .milliseconds(50)))
        #expect(ContinuousClock.now - began < .seconds(10))
        release.signal()
        #expect(worker.join(until: .now + .seconds(30)))
    }

    @Test("a looping job ends soon after stop: stopRequested(within:) wakes at once")
    func loopingJob() {
        let rounds = Atomic<Int>(0)
        let loop = Worker(name: "test-loop")
        loop.submit {
            while !loop.stopRequested(within: .seconds(60)) { rounds.add(1, ordering: .relaxed) }
        }
        let began = ContinuousClock.now
        loop.stop()
        #expect(loop.join(until: .now + .seconds(30)))
        #expect(ContinuousClock.now - began < .seconds(30))
        let looped = rounds.load(ordering: .relaxed)
        #expect(looped == 0)
        #expect(loop.stopRequested(within: .seconds(60)))  // already stopped: at once
    }

    @Test("run: one job on a thread of its own, which ends after it")
    func runOne() {
        let names = Names()
        let worker = Worker.run(name: "test-run") { names.add() }
        #expect(worker.join(until: .now + .seconds(30)))
        #expect(names.all == ["test-run"])
        #expect(!worker.submit {})
    }

    @Test("runBlocking returns the work's result, off the cooperative pool")
    func runBlocking() async {
        let name = await Worker.runBlocking { WorkerTests.threadName() }
        #expect(name == "pushbridge-pool")
        #expect(await Worker.runBlocking { 6 * 7 } == 42)
    }

    @Test("runBlocking calls in progress together never wait for each other")
    func runBlockingConcurrent() async {
        let first = DispatchSemaphore(value: 0), second = DispatchSemaphore(value: 0)
        async let a = Worker.runBlocking { () -> Bool in
            first.signal()
            return second.wait(timeout: .now() + 30) == .success
        }
        async let b = Worker.runBlocking { () -> Bool in
            let seen = first.wait(timeout: .now() + 30) == .success
            second.signal()
            return seen
        }
        let (ra, rb) = await (a, b)
        #expect(ra && rb)
    }
}
