import Testing
@testable import PushBridge

/// `condition.live_activity` and its check against `display.format`.
@Suite struct LiveActivityConfigTests {
    static let apns = "journal: {path: /tmp/x}\nconditions: {ack_topic: pushbridge/ack}\ndisplay: {topic: display/out, format: apns}\n"

    @Test func readsTheKeys() throws {
        let config = try loadConfig(ConditionConfigTests.yaml("""
            key: "{{ topic }}"
            active: 'payload.water_leak == true'
            live_activity: {content_state: '{"battery": {{ payload.battery }}}', stale_after: 1h, dismiss_after: 30m}
            """, extra: Self.apns))
        let live = try #require(config.routes[0].condition?.liveActivity)
        #expect(live.contentState.source == #"{"battery": {{ payload.battery }}}"#)
        #expect(live.staleAfter == .seconds(3600) && live.dismissAfter == .seconds(1800))
        #expect(config.routes[0].condition?.life.contains("a Live Activity") == true)
    }

    @Test func defaults() throws {
        let config = try loadConfig(ConditionConfigTests.yaml("key: k\nactive: 'true'\nlive_activity: {content_state: '{}'}",
                                                              extra: Self.apns))
        let live = try #require(config.routes[0].condition?.liveActivity)
        #expect(live.staleAfter == nil && live.dismissAfter == .seconds(4 * 3600))
    }

    @Test func pushToStartAttributes() throws {
        let config = try loadConfig(ConditionConfigTests.yaml("""
            key: k
            active: 'true'
            live_activity: {content_state: '{}', attributes_type: LeakAttributes, attributes: '{"sensor": "{{ topic }}"}'}
            """, extra: Self.apns))
        let live = try #require(config.routes[0].condition?.liveActivity)
        #expect(live.attributesType == "LeakAttributes" && live.attributes?.source == #"{"sensor": "{{ topic }}"}"#)
        #expect(config.warnings.isEmpty)
        // Without attributes_type: a warning, as the start push cannot start the activity itself.
        let bare = try loadConfig(ConditionConfigTests.yaml("key: k\nactive: 'true'\nlive_activity: {content_state: '{}'}",
                                                            extra: Self.apns))
        #expect(bare.warnings.map(\.message) == [
            "route 'leak': 'live_activity' has no 'attributes_type': its start push cannot start a Live Activity by itself "
            + "(push-to-start needs aps.attributes-type and aps.attributes), only one the app started; set it to the app's ActivityAttributes type"])
        // attributes alone, or an empty type: errors.
        let errors = configErrors(ConditionConfigTests.yaml("key: k\nactive: 'true'\nlive_activity: {content_state: '{}', attributes: '{}'}",
                                                            extra: Self.apns))
        #expect(errors.contains { $0.contains("'attributes' needs 'attributes_type'") })
        let empty = configErrors(ConditionConfigTests.yaml("key: k\nactive: 'true'\nlive_activity: {content_state: '{}', attributes_type: ''}",
                                                           extra: Self.apns))
        #expect(empty.contains { $0.contains("'attributes_type' must name the app's ActivityAttributes type") })
    }

    @Test func needsTheAPNsFormat() {
        let errors = configErrors(ConditionConfigTests.yaml("key: k\nactive: 'true'\nlive_activity: {content_state: '{}'}"))
        #expect(errors == ["bridge.yml:8:7: error: route 'leak': 'live_activity' needs 'display.format: apns' (the display format is json)"])
    }

    @Test func problemsAreReported() {
        let errors = configErrors(ConditionConfigTests.yaml("key: k\nactive: 'true'\nlive_activity: {stale_aftr: 1h}",
                                                            extra: Self.apns))
        #expect(errors.contains { $0.contains("unknown key 'stale_aftr' in live_activity; did you mean 'stale_after'?") })
        #expect(errors.contains { $0.contains("content_state") })
    }
}
