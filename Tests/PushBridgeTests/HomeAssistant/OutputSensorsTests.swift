import Testing
@testable import PushBridge

@Suite struct OutputSensorsTests {
    @Test func threeDiagnosticSensorsPerOutputFromTheStatsTopic() throws {
        let b = try DiscoveryBuilderTests.builder("""
            outputs:
              - {name: phones, ntfy: {url: "https://ntfy.example.com/home"}}
              - {name: Hook 2, webhook: {url: "http://127.0.0.1:9/h"}}
            """)
        let entities = b.entities(routes: ["doorbell"])
        #expect(entities.count == 4 + 2 * 3 + 5)
        #expect(entities.map(\.objectID)[4..<10] == [
            "hall_1_output_phones_pending", "hall_1_output_phones_delivered", "hall_1_output_phones_failed",
            "hall_1_output_hook_2_pending", "hall_1_output_hook_2_delivered", "hall_1_output_hook_2_failed",
        ])
        let pending = try DiscoveryBuilderTests.entity(entities, "hall_1_output_phones_pending")
        #expect(pending.topic == "homeassistant/sensor/hall_1/hall_1_output_phones_pending/config")
        #expect(pending.route == nil)
        let c = pending.config
        #expect(c["state_topic"] == .string("pushbridge/stats"))
        #expect(c["value_template"] == .string("{{ ((value_json.outputs or {}).get('phones') or {}).get('pending', 0) }}"))
        #expect(c["entity_category"] == .string("diagnostic"))
        #expect(c["state_class"] == .string("measurement"))
        #expect(c["unique_id"] == .string("pushbridge:Hall-1:output:phones:pending"))
        #expect(c["availability_topic"] == .string("pushbridge/status"))
        let failed = try DiscoveryBuilderTests.entity(entities, "hall_1_output_hook_2_failed")
        #expect(failed.config["state_class"] == .string("total_increasing"))
        #expect(failed.config["value_template"] == .string("{{ ((value_json.outputs or {}).get('Hook 2') or {}).get('failed', 0) }}"))
    }
}
