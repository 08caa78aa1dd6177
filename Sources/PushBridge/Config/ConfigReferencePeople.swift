/// The reference of `people:` and of the routes' `audience:` and `when_nobody:` (docs/people.md).
extension ConfigReference {
    static let peopleSection: [ConfigKey] = [
        ConfigKey("people", .listOfMappings, default: .array([]),
                  example: .array([.object(["name": .string("alice"), "outputs": .array([.string("phones")])])]),
                  "The people the outputs reach, each with the outputs that are theirs and where their presence (home or away) comes from. An output named by no person reaches everyone; one named by two people is theirs both. Routes pick people with audience; expressions read presence.<name> and people_home."),
        ConfigKey("people[].name", .string, required: true, example: .string("alice"),
                  "The person's name, unique: presence.<name> in expressions, an audience list's item, a Web Push subscription's person."),
        ConfigKey("people[].outputs", .strings, required: true, example: .array([.string("phones")]),
                  "The outputs (names from outputs:) that reach this person; at least one."),
        ConfigKey("people[].presence", .mapping,
                  example: .object(["topic": .string("owntracks/alice/phone"), "home": .string("\"home\" in (payload.inregions | default([]))")]),
                  "Where the person's presence comes from: the newest message of topic decides (retained ones included). Without it, presence is unknown, which counts as matching any audience."),
        ConfigKey("people[].presence.topic", .string, required: true, example: .string("owntracks/alice/phone"),
                  "The MQTT topic (a filter with + and # is allowed: any matching topic's newest message decides). Subscribed at QoS 1; a message there is decided as an ordinary message only when a route matches the topic too."),
        ConfigKey("people[].presence.home", .expression, required: true, example: .string("raw == \"home\""),
                  "An expression over payload, raw and topic: true is home, false away; anything else (a payload that is not what it expects) is unknown."),
        ConfigKey("people[].presence.stale_after", .duration, note: "never", example: .string("12h"),
                  "A presence older than this (since the topic's last message) is unknown."),
        ConfigKey("routes[].audience", .either([.words(["everyone", "home", "away"]), .strings]), default: .string("everyone"),
                  example: .string("home"),
                  "Whose outputs get the route's alerts: everyone; home (the people at home); away (the people away); or a list of people. Outputs of nobody and the display topic always get them; a person whose presence is unknown counts as matching."),
        ConfigKey("routes[].when_nobody", .words(WhenNobody.allCases.map(\.rawValue)), default: .string("everyone"),
                  example: .string("hold"),
                  "What an alert does when its home or away audience is empty: everyone (sent to every output), hold (kept, journaled, and delivered when the first person arrives home: up to 3 one by one, more as the 3 newest and one summary) or none (no person's output gets it)."),
    ]
}
