import Testing
@testable import PushBridge

@Suite struct HomeAssistantConfigTests {
    static let routes = """
    routes:
      - {name: doorbell, topic: home/+/doorbell}
      - {name: ha, topic: pushbridge/notify}

    """

    @Test func offUnlessSet() throws {
        #expect(try loadConfig(Self.routes).homeAssistant == nil)
        #expect(try loadConfig(Self.routes + "homeassistant: null\n").homeAssistant == nil)
        #expect(try loadConfig(Self.routes + "homeassistant:\n").homeAssistant == nil)
    }

    @Test func emptyMappingTakesTheSpecDefaults() throws {
        let ha = try #require(try loadConfig(Self.routes + "homeassistant: {}\n").homeAssistant)
        #expect(ha.discoveryPrefix == "homeassistant")
        #expect(ha.deviceName == "pushbridge")
        #expect(ha.notifyTopic == "pushbridge/notify")
        #expect(ha.birthTopic == "homeassistant/status")
    }

    @Test func everyKeyIsRead() throws {
        let yaml = Self.routes + """
        homeassistant:
          discovery_prefix: ha-disc
          device_name: Hall bridge
          notify_topic: pushbridge/notify

        """
        let ha = try #require(try loadConfig(yaml).homeAssistant)
        #expect(ha.discoveryPrefix == "ha-disc" && ha.deviceName == "Hall bridge")
        #expect(ha.birthTopic == "ha-disc/status")
    }

    @Test func mistakesArePositionedWithDidYouMean() {
        let yaml = Self.routes + """
        homeassistant:
          discovery_prefx: x
          device_name: ""
          notify_topic: "a/+/b"
        monitoring: {status_topic: null}

        """
        #expect(configErrors(yaml) == [
            "bridge.yml:5:3: error: unknown key 'discovery_prefx' in homeassistant; did you mean 'discovery_prefix'?",
            "bridge.yml:5:3: error: 'homeassistant' needs 'monitoring.status_topic' (the entities' availability); remove 'status_topic: null'",
            "bridge.yml:6:16: error: 'device_name' must not be empty",
            "bridge.yml:7:17: error: invalid 'notify_topic' 'a/+/b': a topic to publish to must not contain the wildcards '+' or '#'",
        ])
    }

    @Test func notAMappingIsAnError() {
        #expect(configErrors(Self.routes + "homeassistant: yes\n") == [
            "bridge.yml:4:16: error: 'homeassistant' must be a mapping, got \"yes\"",
        ])
    }

    @Test func prefixMustBeATopic() {
        #expect(configErrors(Self.routes + "homeassistant: {discovery_prefix: 'ha/#'}\n").count == 1)
        #expect(configErrors(Self.routes + "homeassistant: {discovery_prefix: 'ha/'}\n") == [
            "bridge.yml:4:35: error: 'discovery_prefix' must not end with '/', got 'ha/'",
        ])
    }

    @Test func statsTopicIsNeeded() {
        let errors = configErrors(Self.routes + "homeassistant: {}\nmonitoring: {stats_topic: null}\n")
        #expect(errors == [
            "bridge.yml:4:16: error: 'homeassistant' needs 'monitoring.stats_topic' (the counter sensors read it); remove 'stats_topic: null'",
        ])
    }

    @Test func routesWithTheSameIDAreRefused() {
        let yaml = """
        routes:
          - {name: Front door, topic: a/b}
          - {name: front_door, topic: c/d}
        homeassistant: {}

        """
        #expect(configErrors(yaml) == [
            "bridge.yml:3:31: error: routes 'Front door' and 'front_door' get the same Home Assistant id 'front_door'; rename one",
        ])
        // Without the section the names are fine.
        #expect(configErrors(yaml.replacingOccurrences(of: "homeassistant: {}\n", with: "")).isEmpty)
    }

    @Test func routesMustNotReceiveWhatTheBridgeAnnounces() {
        let yaml = """
        broker: {client_id: hall}
        routes:
          - {name: all-ha, topic: "homeassistant/#"}
          - {name: events, topic: "pushbridge/+/event/+"}
          - {name: status, topic: "homeassistant/+"}   # HA's status: allowed (the route gets it too)
          - {name: statestream, topic: "homeassistant/binary_sensor/+/state"}
          - {name: notify, topic: pushbridge/notify}
        homeassistant: {}

        """
        #expect(configErrors(yaml) == [
            "bridge.yml:3:27: error: route 'all-ha' (topic 'homeassistant/#') would receive the bridge's own Home Assistant discovery configs on 'homeassistant/{{ component }}/hall/{{ object_id }}/config'; narrow the filter",
            "bridge.yml:4:27: error: route 'events' (topic 'pushbridge/+/event/+') would receive the bridge's own Home Assistant events on 'pushbridge/hall/event/{{ route }}'; narrow the filter",
        ])
    }

    @Test func checkNamesTheNotifyRouteOrSaysThereIsNone() throws {
        let on = try loadConfig(Self.routes + "homeassistant: {device_name: Hall}\nbroker: {client_id: Hall-1}\n").describe()
        #expect(on.contains("homeassistant: discovery_prefix=homeassistant device_name=\"Hall\" node_id=hall_1 (listens to homeassistant/status)"))
        #expect(on.contains("  notify_topic=pushbridge/notify -> route 'ha'"))
        let none = try loadConfig("routes: [{topic: a/b}]\nhomeassistant: {}\n").describe()
        #expect(none.contains("notify_topic=pushbridge/notify -> no route matches it"))
        #expect(try loadConfig(Self.routes).describe().contains("homeassistant: off"))
        let status = try loadConfig("routes: [{name: ha-status, topic: homeassistant/status}]\nhomeassistant: {}\n").describe()
        #expect(status.contains("(listens to homeassistant/status; route 'ha-status' gets it too)"))
    }

    @Test(arguments: [
        ("doorbell", "doorbell"), ("Front Door", "front_door"), ("home/+/doorbell", "home_doorbell"),
        ("ha-notify", "ha_notify"), ("  x  ", "x"), ("Küche", "k_che"), ("a__b", "a_b"), ("", ""), ("///", ""),
    ])
    func slugs(_ text: String, _ slug: String) {
        #expect(HomeAssistantConfig.slug(text) == slug)
    }

    @Test func emptySlugsFallBack() {
        #expect(HomeAssistantConfig.routeID("///") == "route")
        #expect(HomeAssistantConfig.nodeID(clientID: "€") == "pushbridge")
        #expect(HomeAssistantConfig.nodeID(clientID: "Pushbridge-Hall") == "pushbridge_hall")
    }
}
