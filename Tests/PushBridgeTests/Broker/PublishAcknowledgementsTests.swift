import Testing
@testable import PushBridge

@Suite struct PublishAcknowledgementsTests {
    @Test func anAcknowledgementAfterRegisterReturnsTheWaiter() {
        var t = PublishAcknowledgements<String>()
        let recorded = t.register(5, "five")
        #expect(recorded)
        #expect(t.count == 1)
        let waiter = t.acknowledge(5)
        #expect(waiter == "five")
        #expect(t.isEmpty)
        #expect(t.early.isEmpty)
        let again = t.acknowledge(5, mayComeFirst: false)  // a second PUBACK: nothing
        #expect(again == nil)
        #expect(t.early.isEmpty)
    }

    @Test func anAcknowledgementBeforeRegisterIsKeptAndConsumed() {
        var t = PublishAcknowledgements<String>()
        let first = t.acknowledge(9)
        #expect(first == nil)
        #expect(t.early == [9])
        let recorded = t.register(9, "nine")  // its acknowledgement came first: nothing recorded
        #expect(!recorded)
        #expect(t.isEmpty)
        #expect(t.early.isEmpty)
        let reused = t.register(9, "nine again")  // the mid reused later waits again
        #expect(reused)
        #expect(t.waiting[9] == "nine again")
    }

    @Test func anUnknownMidIsKeptOnlyWhenItMayComeFirst() {
        var t = PublishAcknowledgements<Void>()
        let unknown = t.acknowledge(1, mayComeFirst: false) != nil
        #expect(!unknown)
        #expect(t.early.isEmpty)
        _ = t.acknowledge(2)
        _ = t.acknowledge(3)
        #expect(t.early == [2, 3])
        t.forgetEarly()
        #expect(t.early.isEmpty)
        let recorded = t.register(2, ())  // forgotten: recorded and waiting
        #expect(recorded)
        #expect(t.count == 1)
    }
}
