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

    @Test func passEmitsAtOnceWhenNothingIsPending() {
        let sink = Sink()
        let s = TopicSequencer<String> { sink.add($0) }
        s.pass("a", "a0")
        s.pass("b", "b0")
        #expect(sink.items.withLock { $0 } == ["a0", "b0"])
        #expect(s.pending == 0)
    }

    @Test func passWaitsBehindPendingTicketsOfItsTopicOnly() {
        let sink = Sink()
        let s = TopicSequencer<String> { sink.add($0) }
        let a0 = s.enter("a")
        s.pass("a", "a1")   // behind a0
        s.pass("b", "b0")   // another topic: at once
        let a2 = s.enter("a")
        s.pass("a", "a3")
        #expect(sink.items.withLock { $0 } == ["b0"])
        #expect(s.pending == 4)  // a0 … a3
        s.complete(a0, "a0")
        #expect(sink.items.withLock { $0 } == ["b0", "a0", "a1"])
        s.complete(a2, "a2")
        #expect(sink.items.withLock { $0 } == ["b0", "a0", "a1", "a2", "a3"])
        #expect(s.pending == 0)
        s.pass("a", "a4")   // the lane was removed: at once again
        #expect(sink.items.withLock { $0 }.last == "a4")
    }

    /// `pass` gives the order `enter` + `complete` gives, for any mix of immediate and late results.
    @Test func passMatchesEnterThenComplete() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let fast = Sink(), slow = Sink()
            let viaPass = TopicSequencer<String> { fast.add($0) }
            let viaTickets = TopicSequencer<String> { slow.add($0) }
            var late: [(TopicSequencer<String>.Ticket, TopicSequencer<String>.Ticket, String)] = []
            for i in 0..<60 {
                let topic = "t\(Int.random(in: 0..<3, using: &rng))"
                let item = "\(topic):\(i)"
                if Int.random(in: 0..<3, using: &rng) == 0 {
                    late.append((viaPass.enter(topic), viaTickets.enter(topic), item))
                } else {
                    viaPass.pass(topic, item)
                    viaTickets.complete(viaTickets.enter(topic), item)
                }
                if !late.isEmpty, Int.random(in: 0..<4, using: &rng) == 0 {
                    let (p, t, item) = late.remove(at: Int.random(in: 0..<late.count, using: &rng))
                    viaPass.complete(p, item)
                    viaTickets.complete(t, item)
                }
            }
            for (p, t, item) in late.shuffled(using: &rng) {
                viaPass.complete(p, item)
                viaTickets.complete(t, item)
            }
            #expect(fast.items.withLock { $0 } == slow.items.withLock { $0 })
            #expect(viaPass.pending == 0 && viaTickets.pending == 0)
        }
    }
}
