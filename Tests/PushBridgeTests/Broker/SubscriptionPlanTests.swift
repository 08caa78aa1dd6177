import Testing
@testable import PushBridge

@Suite struct SubscriptionPlanTests {
    let a = MQTTSubscription(filter: "a/#", qos: 1, noLocal: true)
    let b = MQTTSubscription(filter: "b/+", qos: 1, noLocal: true)
    let c0 = MQTTSubscription(filter: "c", qos: 0, noLocal: true)
    let shared = MQTTSubscription(filter: "$share/g/d/#", qos: 1, noLocal: false)

    @Test func freshSessionSubscribesEverythingGroupedByOptions() {
        let plan = SubscriptionPlan(desired: [a, c0, b, shared], held: [])
        #expect(plan.subscribe == [[a, b], [c0], [shared]])
        #expect(plan.unsubscribe.isEmpty)
        #expect(!plan.isEmpty)
    }

    @Test func aSubscriptionWithAnIdentifierHasItsOwnPacket() {
        let x = MQTTSubscription(filter: "x/+/c", qos: 1, noLocal: true, identifier: 1)
        let y = MQTTSubscription(filter: "x/b/+", qos: 1, noLocal: true, identifier: 2)
        let plan = SubscriptionPlan(desired: [a, x, b, y], held: [])
        #expect(plan.subscribe == [[a, b], [x], [y]])
        // A new identifier for a held filter subscribes it again (that replaces it).
        let x2 = MQTTSubscription(filter: "x/+/c", qos: 1, noLocal: true, identifier: 3)
        #expect(SubscriptionPlan(desired: [x2], held: [x]).subscribe == [[x2]])
    }

    @Test func unchangedHeldSubscriptionsSendNothing() {
        let plan = SubscriptionPlan(desired: [a, b], held: [a, b])
        #expect(plan.isEmpty)
    }

    @Test func addedAndRemovedAreDiffed() {
        let plan = SubscriptionPlan(desired: [a, c0], held: [a, b])
        #expect(plan.subscribe == [[c0]])
        #expect(plan.unsubscribe == ["b/+"])
    }

    @Test func changedOptionsResubscribeWithoutUnsubscribing() {
        let a2 = MQTTSubscription(filter: "a/#", qos: 2, noLocal: true)
        let plan = SubscriptionPlan(desired: [a2], held: [a])
        #expect(plan.subscribe == [[a2]])
        #expect(plan.unsubscribe.isEmpty)
    }

    @Test func emptyDesiredUnsubscribesAllSorted() {
        let plan = SubscriptionPlan(desired: [], held: [b, a, shared])
        #expect(plan.subscribe.isEmpty)
        #expect(plan.unsubscribe == ["$share/g/d/#", "a/#", "b/+"])
    }

    @Test func uniqueKeepsTheLastEntryPerFilterInPlace() {
        let a0 = MQTTSubscription(filter: "a/#", qos: 0)
        #expect(SubscriptionPlan.unique([a0, b, a]) == [b, a])
        #expect(SubscriptionPlan.unique([a, b]) == [a, b])
        #expect(SubscriptionPlan.unique([]) == [])
        #expect(SubscriptionPlan(desired: [a0, a], held: []).subscribe == [[a]])
    }

    @Test func groupsKeepFirstSeenOrder() {
        #expect(SubscriptionPlan.grouped([c0, a, shared, b]) == [[c0], [a, b], [shared]])
        #expect(SubscriptionPlan.grouped([]) == [])
    }
}
