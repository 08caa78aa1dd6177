import Testing
@testable import PushBridge

@Suite struct EnvironmentSubstitutionTests {
    private let env = ["HOST": "broker.local", "EMPTY": "", "N": "5"]

    @Test(arguments: [
        ("plain", "plain"),
        ("${HOST}", "broker.local"),
        ("mqtt://${HOST}:1883", "mqtt://broker.local:1883"),
        ("${MISSING:-fallback}", "fallback"),
        ("${HOST:-fallback}", "broker.local"),
        ("${EMPTY:-fallback}", "fallback"),
        ("${EMPTY}", ""),
        ("${MISSING:-}", ""),
        ("$${HOST}", "${HOST}"),
        ("a$b", "a$b"),
        ("$", "$"),
        ("{{ topic }}", "{{ topic }}"),
        ("${N}${N}", "55"),
        ("${MISSING:-a:-b}", "a:-b"),
    ])
    func substitutes(_ input: String, _ expected: String) {
        let (out, problems) = EnvironmentSubstitution.substitute(input, environment: env)
        #expect(out == expected)
        #expect(problems.isEmpty)
    }

    @Test func unsetVariableIsAProblemAtItsOffset() {
        let (_, problems) = EnvironmentSubstitution.substitute("id-${NOPE}", environment: env)
        #expect(problems == [.init(offset: 3, message: "environment variable 'NOPE' is not set (use ${NOPE:-default} to give a default)")])
    }

    @Test func badNamesAndUnterminated() {
        #expect(EnvironmentSubstitution.substitute("${1X}", environment: env).1.map(\.message)
                == ["invalid environment variable name '1X' in '${1X}'"])
        #expect(EnvironmentSubstitution.substitute("${}", environment: env).1.count == 1)
        #expect(EnvironmentSubstitution.substitute("x${HOST", environment: env).1
                == [.init(offset: 1, message: "unterminated '${' (write '$${' for a literal '${')")])
    }
}
