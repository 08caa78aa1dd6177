import Dispatch
import Testing
@testable import PushBridge

@Suite struct ClientStateTests {
    let a = MQTTSubscription(filter: "a/#", qos: 1)
    let b = MQTTSubscription(filter: "b", qos: 0)

    @Test func subscribedOnlyAfterEverySubackOnALiveConnection() {
        var s = ClientState(desired: [a, b])
        #expect(!s.isSubscribed)
        s.beginConnection(sessionPresent: false)
        s.pendingSubscribes = [1: [a], 2: [b]]
        #expect(!s.isSubscribed)
        #expect(s.acknowledgeSubscribe(mid: 1, granted: [1]).isEmpty)
        #expect(!s.isSubscribed)
        #expect(s.acknowledgeSubscribe(mid: 2, granted: [0]).isEmpty)
        #expect(s.isSubscribed)
        s.connected = false
        #expect(!s.isSubscribed)
    }

    @Test func refusedSubscriptionIsReportedAndBlocksSubscribed() {
        var s = ClientState(desired: [a, b])
        s.beginConnection(sessionPresent: false)
        s.pendingSubscribes = [7: [a, b]]
        let failures = s.acknowledgeSubscribe(mid: 7, granted: [1, 0x87])
        #expect(failures.map(\.0) == [b])
        #expect(failures.map(\.1) == [0x87])
        #expect(s.held == [a])
        #expect(s.refused == [b])
        #expect(!s.isSubscribed)
    }

    @Test func missingGrantCodesCountAsRefused() {
        var s = ClientState(desired: [a, b])
        s.beginConnection(sessionPresent: false)
        s.pendingSubscribes = [3: [a, b]]
        #expect(s.acknowledgeSubscribe(mid: 3, granted: [1]).map(\.0) == [b])
    }

    @Test func unknownSubackIsIgnored() {
        var s = ClientState(desired: [a])
        s.beginConnection(sessionPresent: false)
        #expect(s.acknowledgeSubscribe(mid: 99, granted: [0]).isEmpty)
        #expect(s.held.isEmpty)
    }

    @Test func sessionPresenceDecidesWhatTheBrokerStillHolds() {
        var s = ClientState(desired: [a])
        s.held = [a]
        s.beginConnection(sessionPresent: true)
        #expect(s.held == [a])
        #expect(s.isSubscribed)
        s.beginConnection(sessionPresent: false)
        #expect(s.held.isEmpty)
        #expect(!s.isSubscribed)
    }

    @Test func newConnectionForgetsPendingPackets() {
        var s = ClientState(desired: [a])
        s.pendingSubscribes = [1: [a]]
        s.pendingUnsubscribes = [2: ["x"]]
        s.refused = [a]
        s.beginConnection(sessionPresent: true)
        #expect(s.pendingSubscribes.isEmpty && s.pendingUnsubscribes.isEmpty && s.refused.isEmpty)
        #expect(s.connected && s.accepted)
    }

    @Test func heldOrPendingReplacesFiltersBeingResubscribed() {
        var s = ClientState(desired: [])
        let a2 = MQTTSubscription(filter: "a/#", qos: 2)
        s.held = [a, b]
        s.pendingSubscribes = [4: [a2]]
        #expect(s.heldOrPending == [a2, b])
    }

    @Test func heldOrPendingLeavesOutFiltersBeingUnsubscribed() {
        var s = ClientState(desired: [])
        s.held = [a, b]
        s.pendingUnsubscribes = [6: ["a/#"]]
        #expect(s.heldOrPending == [b])
        // A filter unsubscribed and wanted again is subscribed again (after the UNSUBSCRIBE).
        #expect(SubscriptionPlan(desired: [a, b], held: s.heldOrPending).subscribe == [[a]])
    }

    @Test func pendingUnsubscribeBlocksSubscribed() {
        var s = ClientState(desired: [a])
        s.held = [a]
        s.beginConnection(sessionPresent: true)
        #expect(s.isSubscribed)
        s.pendingUnsubscribes = [8: ["b"]]
        #expect(!s.isSubscribed)
        s.acknowledgeUnsubscribe(mid: 8)
        #expect(s.isSubscribed)
    }

    @Test func subackReplacesOldOptionsForTheFilter() {
        var s = ClientState(desired: [])
        let a2 = MQTTSubscription(filter: "a/#", qos: 2)
        s.held = [a]
        s.pendingSubscribes = [4: [a2]]
        _ = s.acknowledgeSubscribe(mid: 4, granted: [2])
        #expect(s.held == [a2])
    }

    @Test func unsubackDropsTheFilters() {
        var s = ClientState(desired: [])
        s.held = [a, b]
        s.pendingUnsubscribes = [5: ["a/#"]]
        s.acknowledgeUnsubscribe(mid: 5)
        #expect(s.held == [b])
        s.acknowledgeUnsubscribe(mid: 5)
        #expect(s.held == [b])
    }

    @Test func lastPublishAckSignalsTheFlushWaiter() {
        var s = ClientState(desired: [])
        let waiter = DispatchSemaphore(value: 0)
        _ = s.outstanding.register(1, ()); _ = s.outstanding.register(2, ())
        s.flushWaiter = waiter
        s.acknowledgePublish(mid: 1)
        #expect(waiter.wait(timeout: .now()) == .timedOut)
        s.acknowledgePublish(mid: 42)  // a QoS 0 mid: not tracked
        #expect(Set(s.outstanding.waiting.keys) == [2])
        s.acknowledgePublish(mid: 2)
        #expect(waiter.wait(timeout: .now()) == .success)
        #expect(s.flushWaiter == nil)
    }

    @Test func anAcknowledgementBeforeEndPublishIsKeptForIt() {
        var s = ClientState(desired: [])
        s.beginPublish()
        s.acknowledgePublish(mid: 7)  // the network thread was quicker than endPublish
        #expect(s.outstanding.isEmpty)
        #expect(s.outstanding.early == [7])
        #expect(s.unacknowledgedCount == 1)
        s.endPublish(mid: 7)
        #expect(s.outstanding.isEmpty)
        #expect(s.outstanding.early.isEmpty)
        #expect(s.unacknowledgedCount == 0)
    }

    @Test func anAcknowledgementAfterEndPublishClearsTheMid() {
        var s = ClientState(desired: [])
        s.beginPublish()
        s.endPublish(mid: 3)
        #expect(Set(s.outstanding.waiting.keys) == [3])
        #expect(s.unacknowledgedCount == 1)
        s.acknowledgePublish(mid: 3)
        #expect(s.outstanding.isEmpty)
        #expect(s.outstanding.early.isEmpty)
    }

    @Test func untrackedMidsSeenDuringAPublishAreDroppedWhenNoneIsInProgress() {
        var s = ClientState(desired: [])
        s.beginPublish()
        s.beginPublish()
        s.acknowledgePublish(mid: 40)  // a QoS 0 mid
        s.endPublish(mid: 1)
        #expect(s.outstanding.early == [40])  // one publish still in progress
        s.endPublish(mid: 2)
        #expect(s.outstanding.early.isEmpty)
        #expect(Set(s.outstanding.waiting.keys) == [1, 2])
        s.acknowledgePublish(mid: 41)  // nothing in progress: not kept
        #expect(s.outstanding.early.isEmpty)
    }

    @Test func aFailedPublishRecordsNothing() {
        var s = ClientState(desired: [])
        let waiter = DispatchSemaphore(value: 0)
        s.beginPublish()
        s.flushWaiter = waiter
        #expect(s.unacknowledgedCount == 1)
        s.endPublish(mid: nil)
        #expect(s.outstanding.isEmpty)
        #expect(s.unacknowledgedCount == 0)
        #expect(waiter.wait(timeout: .now()) == .success)
    }

    @Test func theFlushWaiterWaitsForPublishesInProgress() {
        var s = ClientState(desired: [])
        let waiter = DispatchSemaphore(value: 0)
        _ = s.outstanding.register(1, ())
        s.beginPublish()
        s.flushWaiter = waiter
        s.acknowledgePublish(mid: 1)
        #expect(waiter.wait(timeout: .now()) == .timedOut)  // one still being handed over
        s.endPublish(mid: 2)
        #expect(waiter.wait(timeout: .now()) == .timedOut)
        s.acknowledgePublish(mid: 2)
        #expect(waiter.wait(timeout: .now()) == .success)
        #expect(s.flushWaiter == nil)
    }

    @Test func desiredIsDeduplicated() {
        let a0 = MQTTSubscription(filter: "a/#", qos: 0)
        #expect(ClientState(desired: [a, a0]).desired == [a0])
    }
}
