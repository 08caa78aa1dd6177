import Foundation
import Synchronization
import Testing
@testable import PushBridge

/// The network loop's cross-thread wake-up (Broker/Mosquitto/LoopWakeup.swift).
@Suite("Loop wake-up")
struct LoopWakeupTests {
    @Test("no signal is lost while the loop drains concurrently (two signalling threads)")
    func noLostWakeups() throws {
        let wakeup = try LoopWakeup()
        let drains = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        let pollerDone = DispatchSemaphore(value: 0)
        Thread {
            wakeup.adoptCurrentThread()
            var fds = [pollfd(fd: wakeup.fd, events: Int16(POLLIN), revents: 0)]
            while !stop.load(ordering: .relaxed) {
                fds[0].revents = 0
                if poll(&fds, 1, 50) > 0 {
                    wakeup.drain()
                    drains.add(1, ordering: .sequentiallyConsistent)
                }
            }
            pollerDone.signal()
        }.start()
        let lost = Atomic<Int>(0)
        let group = DispatchGroup()
        for _ in 0..<2 {
            DispatchQueue.global().async(group: group) {
                for _ in 0..<5_000 {
                    let before = drains.load(ordering: .sequentiallyConsistent)
                    wakeup.signal()
                    // The signal must lead to a drain that starts after it: wait for two more
                    // drains or the count to move past one that was already under way.
                    let deadline = ContinuousClock.now + .seconds(2)
                    while drains.load(ordering: .sequentiallyConsistent) < before + 2 {
                        if ContinuousClock.now > deadline { break }
                        wakeup.signal()
                        sched_yield()
                    }
                    if drains.load(ordering: .sequentiallyConsistent) < before + 2 {
                        lost.add(1, ordering: .relaxed)
                        return
                    }
                }
            }
        }
        group.wait()
        stop.store(true, ordering: .relaxed)
        pollerDone.wait()
        #expect(lost.load(ordering: .relaxed) == 0, "a signal never woke the poller")
    }

    @Test("signals from the loop's own thread write nothing")
    func ownThreadSkips() throws {
        let wakeup = try LoopWakeup()
        wakeup.adoptCurrentThread()
        wakeup.signal()
        var fds = [pollfd(fd: wakeup.fd, events: Int16(POLLIN), revents: 0)]
        #expect(poll(&fds, 1, 0) == 0)
    }

    @Test("the loop thread is the one that adopted the wake-up, and only once it did")
    func knowsTheLoopThread() throws {
        let wakeup = try LoopWakeup()
        #expect(!wakeup.isLoopThread, "no loop thread yet")
        let other = DispatchSemaphore(value: 0)
        let seen = Atomic<Int>(0)
        Thread {
            wakeup.adoptCurrentThread()
            if wakeup.isLoopThread { seen.add(1, ordering: .relaxed) }
            other.signal()
        }.start()
        other.wait()
        #expect(seen.load(ordering: .relaxed) == 1)
        #expect(!wakeup.isLoopThread, "another thread's")
    }
}
