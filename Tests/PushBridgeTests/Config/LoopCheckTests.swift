import Testing
@testable import PushBridge

@Suite struct LoopCheckTests {
    @Test(arguments: [
        ("#", "display/{{ topic }}", true),
        ("display/#", "display/{{ topic }}", true),
        ("display/+", "display/{{ topic }}", true),
        ("display/+/x", "display/{{ topic }}", true),
        ("display", "display/{{ topic }}", false),
        ("other/#", "display/{{ topic }}", false),
        ("home/+/doorbell", "display/{{ topic }}", false),
        ("+/+", "display/{{ levels[1] }}", true),
        ("+", "display/{{ topic }}", false),
        ("display/a", "display/{{ topic }}", true),
        ("display/a/b/c", "display/{{ topic }}", true),
        ("home/#", "{{ topic }}/shown", true),
        ("home/+", "{{ topic }}/shown", true),
        ("home", "{{ topic }}/shown", false),
        ("home/x/y", "{{ topic }}/shown", false),
        ("home/x/shown", "{{ topic }}/shown", true),
        ("a/b", "a/b", true),
        ("a/+", "a/b", true),
        ("a/+", "a/b/c", false),
        ("#", "$bridge/{{ topic }}", false),
        ("+/#", "$bridge/out", false),
        ("$bridge/#", "$bridge/{{ topic }}", true),
        ("#", "{{ topic }}", true),
        ("x/+/z", "x/{{ a }}/{{ b }}/z", false),
        ("x/+/+/z", "x/{{ a }}/{{ b }}/z", true),
        ("x/#", "x/{{ a }}/{{ b }}/z", true),
        ("x/+/y", "x{{ a }}y", true),
        ("x/y", "x{{ a }}z", false),
        ("dl/+", "dl/{{ route }}", true),
        ("home/+/doorbell", "home/front/display", false),
        ("home/+/doorbell", "home/{{ x }}bell", true),
    ])
    func overlap(_ filter: String, _ template: String, _ expected: Bool) {
        #expect(LoopCheck.templateMayMatch(filter: filter, template: template) == expected)
    }

    @Test func pieces() {
        let p = LoopCheck.pieces(of: "a/{{ x }}b")
        #expect(p == [UInt8(ascii: "a"), UInt8(ascii: "/"), nil, UInt8(ascii: "b")])
        #expect(LoopCheck.pieces(of: "{{ unterminated").count == 1)
    }
}
