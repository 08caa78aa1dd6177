import Testing
@testable import PushBridge

/// `monitoring.trace_topic`: off by default, a publish topic, printed by `check`,
/// and, like the other outputs, never readable by a route.
@Suite("Config: monitoring.trace_topic")
struct TraceTopicConfigTests {
    let route = "routes: [{topic: 'home/#'}]\n"

    @Test func offByDefaultAndSetWhenGiven() throws {
        #expect(try loadConfig(route).monitoring.traceTopic == nil)
        #expect(try loadConfig(route + "monitoring: {trace_topic: pushbridge/trace}\n").monitoring.traceTopic == "pushbridge/trace")
        #expect(try loadConfig(route + "monitoring: {trace_topic: null}\n").monitoring.traceTopic == nil)
        #expect(try loadConfig(route + "monitoring: {trace_topic: \"${T:-x/trace}\"}\n").monitoring.traceTopic == "x/trace")
    }

    @Test func aWildcardIsAnErrorWithItsPosition() {
        #expect(configErrors(route + "monitoring:\n  trace_topic: trace/#\n") ==
                ["bridge.yml:3:16: error: invalid 'trace_topic' 'trace/#': a topic to publish to must not contain the wildcards '+' or '#'"])
    }

    @Test func aMisspeltKeyGetsASuggestion() {
        let errors = configErrors(route + "monitoring:\n  trace_topc: t\n")
        #expect(errors.count == 1 && errors[0].contains("did you mean 'trace_topic'?"), "\(errors)")
    }

    @Test func aRouteThatWouldReadTheTraceIsRefused() {
        let errors = configErrors("routes: [{topic: 'pushbridge/#'}]\ndisplay: {topic: 'd/{{ topic }}'}\nmonitoring: {status_topic: null, stats_topic: null, trace_topic: pushbridge/trace}\n")
        #expect(errors.count == 1 && errors[0].contains("trace messages on 'pushbridge/trace'"), "\(errors)")
    }

    @Test func checkPrintsIt() throws {
        let on = try loadConfig(route + "monitoring: {trace_topic: pushbridge/trace}\n").describe()
        #expect(on.contains("trace_topic=pushbridge/trace"), "\(on)")
        #expect(try loadConfig(route).describe().contains("trace_topic=off"))
    }
}
