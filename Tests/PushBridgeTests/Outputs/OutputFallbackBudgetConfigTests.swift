import Foundation
import Testing
@testable import PushBridge

/// `fallback`, `fallback_after` and `budget` of an output, and an escalation step's `outputs`.
@Suite struct OutputFallbackBudgetConfigTests {
    static let routes = """
        routes:
          - {name: door, topic: home/+/door, alert: {title: Door}}
          - name: leak
            topic: leak/#
            alert: {title: Leak}
            condition:
              key: "{{ topic }}"
              active: 'payload.water_leak == true'
              escalate:
                - {after: 30m, outputs: [sms-hook]}

        """

    @Test func fallbackBudgetAndStepOutputsRead() throws {
        let config = try loadConfig(Self.routes + """
            outputs:
              - name: phones
                ntfy: {url: "https://ntfy.example.com/home"}
                fallback: sms-hook
                budget: {per_day: 250}
              - name: sms-hook
                routes: [door]
                webhook: {url: "http://127.0.0.1:9/sms"}
                fallback: mail
                fallback_after: 2m
              - name: mail
                webhook: {url: "http://127.0.0.1:9/mail"}
            """)
        let phones = config.outputs[0], hook = config.outputs[1], mail = config.outputs[2]
        #expect(phones.fallback == "sms-hook")
        #expect(phones.fallbackAfter == .seconds(300), "5m when fallback is set without fallback_after")
        #expect(phones.budget == OutputBudgetConfig(perDay: 250))
        #expect(phones.budget?.digestFrom == 200)
        #expect(hook.fallback == "mail" && hook.fallbackAfter == .seconds(120))
        #expect(hook.budget == nil && mail.fallback == nil)
        #expect(config.routes[1].condition?.escalate.first?.outputs == ["sms-hook"])
        let text = config.describe()
        #expect(text.contains("fallback=sms-hook after 5m budget=250/day (digest from 200 used)"), "\(text)")
        #expect(text.contains("fallback=mail after 2m"))
        #expect(text.contains("step 1 after 30m also through sms-hook"))
    }

    @Test func digestPointIsEightyPercentRoundedUp() {
        #expect(OutputBudgetConfig(perDay: 5).digestFrom == 4)
        #expect(OutputBudgetConfig(perDay: 1).digestFrom == 1)
        #expect(OutputBudgetConfig(perDay: 3).digestFrom == 3)
        #expect(OutputBudgetConfig(perDay: 10).digestFrom == 8)
        #expect(OutputBudgetConfig(perDay: 250).digestFrom == 200)
        #expect(OutputBudgetConfig(perDay: 251).digestFrom == 201)
    }

    @Test func positionedErrors() {
        let errors = configErrors(Self.routes.replacingOccurrences(of: "[sms-hook]", with: "[sms-hok, a]") + """
            outputs:
              - name: a
                webhook: {url: "http://x/a"}
                fallback: a
              - name: b
                webhook: {url: "http://x/b"}
                fallback: c
              - name: c
                webhook: {url: "http://x/c"}
                fallback: b
              - name: d
                webhook: {url: "http://x/d"}
                fallback: bb
                budget: {per_day: 0}
              - name: e
                webhook: {url: "http://x/e"}
                fallback_after: 1m
                budget: {per_day: -3}
              - name: f
                webhook: {url: "http://x/f"}
                budget: {perday: 3}
              - name: g
                webhook: {url: "http://x/g"}
                fallbak: a
              - name: sms-hook
                webhook: {url: "http://x/sms"}
            """)
        // One run reports every problem, each at its position, with the near names.
        let expected = [
            "bridge.yml:10:34: error: route 'leak': unknown output 'sms-hok' in an escalation step's 'outputs'; did you mean 'sms-hook'?",
            "bridge.yml:14:15: error: output 'a': 'fallback' names the output itself; name another output that reaches the same people",
            "bridge.yml:17:15: error: 'fallback' forms a cycle: b → c → b; a fallback must not fall back to the output it stands in for",
            "bridge.yml:23:15: error: output 'd': unknown output 'bb' in 'fallback'; did you mean 'b'?",
            "bridge.yml:24:23: error: 'per_day' must be at least 1 (got 0): give the number of deliveries a day this output may make, or remove 'budget' for no limit",
            "bridge.yml:27:5: error: 'fallback_after' needs 'fallback' (the output a late delivery is also handed to); add 'fallback: <output>' or remove it",
            "bridge.yml:28:23: error: 'per_day' must be at least 1 (got -3): give the number of deliveries a day this output may make, or remove 'budget' for no limit",
            "bridge.yml:31:13: error: 'budget' needs 'per_day'",
            "bridge.yml:31:14: error: unknown key 'perday' in budget; did you mean 'per_day'?",
            "bridge.yml:34:5: error: unknown key 'fallbak' in an output; did you mean 'fallback'?",
        ]
        #expect(errors == expected, "\(errors.joined(separator: "\n"))")
    }

    @Test func stepOutputsWithoutAnyOutput() {
        let errors = configErrors(Self.routes)
        #expect(errors == ["bridge.yml:10:34: error: route 'leak': unknown output 'sms-hook' in an escalation step's 'outputs'; there is no 'outputs:' section"],
                "\(errors.joined(separator: "\n"))")
    }
}
