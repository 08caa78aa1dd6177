import Synchronization
import Testing
@testable import PushBridge

@Suite struct TopicSequencerTests {
    final class Sink: Sendable {
        let items = Mutex<[String]>([])
        func add(_ s: String) { items.withLock { $0.append(s) } }
    }

    @Test func keepsArrivalOrderPerTopic() {
        let sink = Sink()
        let s = TopicSequencer<String> { sink.add($0) }
        let a0 = s.enter("a"), a1 = s.enter("a"), b0 = s.enter("b"), a2 = s.enter("a")
        s.complete(a2, "a2")
        s.complete(a1, "a1")
        #expect(sink.items.withLock { $0 } == [])
        s.complete(b0, "b0")  // another topic never waits
        #expect(sink.items.withLock { $0 } == ["b0"])
        s.complete(a0, "a0")
        #expect(sink.items.withLock { $0 } == ["b0", "a0", "a1", "a2"])
        #expect(s.pending == 0)
    }

    @Test func concurrentCompletionsStayOrdered() async {
        let sink = Sink()
        let s = TopicSequencer<String> { sink.add($0) }
        let tickets = (0..<500).map { i in (s.enter("t\(i % 5)"), i) }
        await withTaskGroup(of: Void.self) { group in
            for (ticket, i) in tickets.shuffled() {
                group.addTask { s.complete(ticket, "t\(i % 5):\(i)") }
            }
        }
        let out = sink.items.withLock { $0 }
        #expect(out.count == 500)
        for topic in 0..<5 {
            let seq = out.filter { $0.hasPrefix("t\(topic):") }.map { Int($0.split(separator: ":")[1])! }
            #expect(seq == seq.sorted())
        }
        #expect(s.pending == 0)
    }
}
