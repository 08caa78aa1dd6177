import Foundation
import Synchronization
import Testing
@testable import PushBridge

/// `TopicSequencer` emits outside its lock: topics never wait for each other's emits, and an
/// emit may call back into the sequencer.
@Suite("TopicSequencer: emitting outside the lock")
struct SequencerEmitTests {
    final class Box: Sendable {
        let sequencer = Mutex<TopicSequencer<String>?>(nil)
        let items = Mutex<[String]>([])
    }

    @Test("an emit of one topic does not wait for another topic's emit in progress")
    func topicsEmitAtTheSameTime() async {
        let aStarted = DispatchSemaphore(value: 0)
        let bDone = DispatchSemaphore(value: 0)
        let sawB = Atomic<Bool>(false)
        let s = TopicSequencer<String> { item in
            if item == "a" {
                aStarted.signal()
                // Under one lock for every emit this wait could never end in time.
                sawB.store(bDone.wait(timeout: .now() + .seconds(20)) == .success, ordering: .relaxed)
            } else {
                bDone.signal()
            }
        }
        let a = s.enter("a"), b = s.enter("b")
        // On dispatch threads, not in a task group: the two sides block (semaphores), and
        // blocking the test runner's cooperative pool (two threads on two cores) can starve
        // this test's other side and every other test running at the time.
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { s.complete(a, "a") }
        DispatchQueue.global().async(group: group) {
            _ = aStarted.wait(timeout: .now() + .seconds(20))
            s.complete(b, "b")
        }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            group.notify(queue: .global()) { done.resume() }
        }
        let emittedTogether = sawB.load(ordering: .relaxed)
        #expect(emittedTogether)
        #expect(s.pending == 0)
    }

    @Test("an emit may call back into the sequencer (pass, enter, pending)")
    func emitMayReenter() {
        let box = Box()
        let s = TopicSequencer<String> { item in
            box.items.withLock { $0.append(item) }
            guard let s = box.sequencer.withLock({ $0 }) else { return }
            _ = s.pending
            if item == "a0" { s.pass("b", "b0") }
        }
        box.sequencer.withLock { $0 = s }
        let a0 = s.enter("a")
        s.pass("a", "a1")
        s.complete(a0, "a0")
        #expect(box.items.withLock { $0 } == ["a0", "b0", "a1"])
        #expect(s.pending == 0)
    }

    @Test("results handed in while a topic drains are emitted by the draining thread, in order")
    func handedInWhileDraining() {
        let box = Box()
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let s = TopicSequencer<String> { item in
            if item == "t0" {
                started.signal()
                _ = release.wait(timeout: .now() + .seconds(20))
            }
            box.items.withLock { $0.append(item) }
        }
        let tickets = (0..<50).map { _ in s.enter("t") }
        Thread.detachNewThread {
            s.complete(tickets[0], "t0")
            done.signal()
        }
        #expect(started.wait(timeout: .now() + .seconds(20)) == .success)
        // t0's emit is in progress: these only queue (and return) without emitting.
        for i in (1..<50).reversed() { s.complete(tickets[i], "t\(i)") }
        #expect(box.items.withLock { $0 }.isEmpty)
        release.signal()
        #expect(done.wait(timeout: .now() + .seconds(20)) == .success)
        #expect(box.items.withLock { $0 } == (0..<50).map { "t\($0)" })
        #expect(s.pending == 0)
    }
}

/// `Bridge.init` builds every handle or throws: nothing is stored to fail later.
@Suite struct BridgeFactoryTests {
    @Test func aJournalThatCannotBeOpenedFailsTheInit() throws {
        let config = try loadConfig("""
            routes:
              - {name: a, topic: a/#}
            journal: {path: /proc/self/pushbridge-journal}
            monitoring: {status_topic: null, stats_topic: null}
            """)
        #expect(throws: (any Error).self) { try InProcessBridge.make(config: config, logger: BridgeLogger(level: .error, sink: { _ in })) }
    }
}
