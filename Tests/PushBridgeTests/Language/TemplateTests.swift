import Testing
@testable import PushBridge

@Suite("Language templates")
struct TemplateTests {
    private func render(_ source: String, _ context: TestContext = .sample) throws -> String {
        try Template.parse(source).render(in: context)
    }

    @Test("rendering each kind of value", arguments: [
        ("{{ null }}", ""), ("{{ payload.missing }}", ""), ("{{ 'text' }}", "text"), ("{{ 42 }}", "42"),
        ("{{ -9223372036854775808 }}", "-9223372036854775808"), ("{{ 1234567890123456789 }}", "1234567890123456789"),
        ("{{ 42.0 }}", "42"), ("{{ 41 + 1 }}", "42"), ("{{ 0.1 }}", "0.1"), ("{{ 2.5 }}", "2.5"), ("{{ -0.0 }}", "0"),
        ("{{ 1e300 }}", "1e+300"), ("{{ 1.5e-7 }}", "1.5e-07"), ("{{ 7 / 2 }}", "3.5"), ("{{ true }}", "true"),
        ("{{ false }}", "false"), ("{{ [1, 'a', null] }}", "[1,\"a\",null]"), ("{{ payload.a }}", "{\"b\":7}"),
        ("{{ [] }}", "[]"), ("{{ properties }}", "{\"room\":\"hall\",\"x\":\"1\"}"),
    ])
    func renderValues(source: String, expected: String) throws {
        #expect(try render(source) == expected)
    }

    @Test("text and holes")
    func textAndHoles() throws {
        #expect(try render("display/{{ topic }}") == "display/home/front/door")
        #expect(try render("{{payload.s}}, {{ levels[1] }}!") == "Hello, front!")
        #expect(try render("plain text") == "plain text")
        #expect(try render("") == "")
        #expect(try render("a }} b } c {") == "a }} b } c {")
        #expect(try render("{{ '{{' }} not a hole }}") == "{{ not a hole }}")
        #expect(try render("{{ \"}}\" }}x") == "}}x")
        #expect(try render("ünï {{ 'ç' }} ✓") == "ünï ç ✓")
        #expect(try render("{{ payload.a.b }}{{ payload.n }}") == "75")
        #expect(try render("{{ payload.missing | default('-') }}|{{ hour }}") == "-|22")
        #expect(try render("{{ [[1]] }}") == "[[1]]")
        #expect(try render("x{{1}}}") == "x1}")
        #expect(try render("{{ content.title }}: {{ content.body | truncate(7) }}") == "Ding: Someone")
    }

    @Test("text longer than the render buffer goes on as a string")
    func longText() throws {
        let long = String(repeating: "ab", count: TextPieces.capacity / 2 + 50)
        #expect(try render("\(long){{ payload.s }}\(long)") == long + "Hello" + long)
        #expect(try render("{{ payload.s }}\(long)ü{{ 42 }}") == "Hello" + long + "ü42")
        #expect(try render(String(repeating: "x", count: TextPieces.capacity) + "{{ payload.s }}")
                == String(repeating: "x", count: TextPieces.capacity) + "Hello")
    }

    @Test("hasHoles")
    func hasHoles() throws {
        #expect(try Template.parse("{{ topic }}").hasHoles)
        #expect(try Template.parse("a{{1}}b").hasHoles)
        #expect(try !Template.parse("plain").hasHoles)
        #expect(try !Template.parse("a }} b").hasHoles)
        #expect(try !Template.parse("").hasHoles)
    }

    @Test("value: a single hole keeps the value, anything else is the rendered string")
    func value() throws {
        let context = TestContext.sample
        #expect(try Template.parse("{{ payload }}").value(in: context) == context.value(of: .payload))
        #expect(try Template.parse("  {{ payload.n }}\n").value(in: context) == .int(5))
        #expect(try Template.parse("{{payload.a}}").value(in: context) == .object(["b": .int(7)]))
        #expect(try Template.parse("{{ payload.missing }}").value(in: context) == .null)
        #expect(try Template.parse("{{ 1.5 }}").value(in: context) == .double(1.5))
        #expect(try Template.parse("n={{ payload.n }}").value(in: context) == .string("n=5"))
        #expect(try Template.parse("{{ payload.n }}{{ payload.n }}").value(in: context) == .string("55"))
        #expect(try Template.parse("{{ payload.n }}.").value(in: context) == .string("5."))
        #expect(try Template.parse("plain").value(in: context) == .string("plain"))
        #expect(try Template.parse("").value(in: context) == .string(""))
        #expect(try Template.parse("{{ payload.n }}").render(in: context) == "5")
    }

    @Test("a parsed template renders the same for many contexts")
    func reuse() throws {
        let template = try Template.parse("{{ topic }}:{{ qos + 1 }}")
        for qos in 0..<3 {
            let context = TestContext([.topic: .string("t\(qos)"), .qos: .int(Int64(qos))])
            #expect(template.render(in: context) == "t\(qos):\(qos + 1)")
        }
    }

    @Test("MessageContext works as an evaluation context")
    func messageContext() throws {
        var content = NotificationContent()
        content.title = "Hi"
        let context = MessageContext(topic: "home/front/door", payload: .object(["level": .string("info")]),
                                     raw: "{}", pushType: nil, content: content)
        #expect(try Template.parse("{{ levels[1] }} {{ push_type }} {{ content.title }}").render(in: context)
            == "front none Hi")
        #expect(try Expression.parse("payload.level == 'info' && qos == 0").isTrue(in: context))
    }
}
