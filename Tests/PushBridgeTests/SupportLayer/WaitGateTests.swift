import Foundation
import Synchronization
import Testing
@testable import PushBridge

@Suite("WaitGate")
struct WaitGateTests {
    final class Flag: Sendable {
        let value = Atomic<Bool>(false)
        let gate = WaitGate()
    }

    final class Counter: Sendable {
        let count = Atomic<Int>(0)
        let gate = WaitGate()
    }

    @Test("a condition already true returns at once, even with a deadline in the past")
    func alreadyTrue() {
        #expect(WaitGate().wait(until: .now - .seconds(1)) { true })
    }

    @Test("the deadline ends a wait for a condition that never comes true")
    func deadline() {
        #expect(!WaitGate().wait(until: .now + .milliseconds(20)) { false })
    }

    @Test("notify from another thread wakes the waiter, which sees the change")
    func wakes() {
        let f = Flag()
        Thread.detachNewThread {
            f.value.store(true, ordering: .sequentiallyConsistent)
            f.gate.notify()
        }
        #expect(f.gate.wait(until: .now + .seconds(30)) { f.value.load(ordering: .sequentiallyConsistent) })
    }

    @Test("many changes and notifies: every waiter (a thread each) ends with its condition true")
    func manyWaiters() {
        let f = Counter()
        let ok = Atomic<Int>(0)
        let group = DispatchGroup()
        for i in 1...8 {
            group.enter()
            Thread.detachNewThread {
                if f.gate.wait(until: .now + .seconds(30), for: { f.count.load(ordering: .sequentiallyConsistent) >= i * 100 }) {
                    ok.add(1, ordering: .relaxed)
                }
                group.leave()
            }
        }
        for _ in 0..<800 {
            f.count.add(1, ordering: .sequentiallyConsistent)
            f.gate.notify()
        }
        #expect(group.wait(timeout: .now() + .seconds(60)) == .success)
        let woken = ok.load(ordering: .relaxed)
        #expect(woken == 8)
    }
}
