import Dispatch
import Synchronization
import Testing

/// A contended `Mutex` from several threads. Under ThreadSanitizer (`make sanitize`) this is
/// the check of Sources/CSocketBuffers/tsan_mutex.c: without it, TSan misses the kernel's
/// hand-over of a contended lock and reports every access here as a race (failing the run).
@Suite("Contended Mutex")
struct ContendedMutexTests {
    final class Counter: Sendable {
        let value = Mutex<[Int]>([0])
    }

    @Test("4 threads × 20 000 increments under one Mutex count exactly")
    func contendedIncrements() {
        let counter = Counter()
        let group = DispatchGroup()
        for _ in 0..<4 {
            DispatchQueue.global().async(group: group) {
                for _ in 0..<20_000 { counter.value.withLock { $0[0] += 1 } }
            }
        }
        group.wait()
        #expect(counter.value.withLock { $0[0] } == 80_000)
    }
}
