import Foundation
import Testing
@testable import PushBridge

@Suite struct OutputConfigTests {
    static let routes = """
        routes:
          - {name: door, topic: home/+/door, alert: {title: Door}}
          - {name: leak, topic: leak/#, alert: {title: Leak}}

        """

    @Test func ntfyAndWebhookWithDefaultsAndEveryKey() throws {
        let token = try writeTempFile("tk_secret123\n", name: "ntfy-token")
        let config = try loadConfig(Self.routes + """
            outputs:
              - name: phones
                ntfy: {url: "https://ntfy.example.com/home", token_file: "\(token)"}
              - name: hook
                routes: [leak]
                timeout: 3s
                concurrency: 2
                tls: {ca_file: /etc/ssl/private-ca.pem, insecure: false}
                webhook:
                  url: http://127.0.0.1:9/hook
                  method: PUT
                  headers: {Authorization: "Bearer abc", X-Source: pushbridge}
                  body: "{{ message.title }}: {{ message.body }}"
            """)
        #expect(config.outputs.count == 2)
        let phones = config.outputs[0]
        #expect(phones.name == "phones")
        #expect(phones.routes == nil)
        #expect(phones.timeout == .seconds(10))
        #expect(phones.concurrency == 4)
        #expect(phones.tls.insecure == false && phones.tls.caFile == nil)
        guard case .ntfy(let n) = phones.kind else { Issue.record("not ntfy"); return }
        #expect(n.url == "https://ntfy.example.com/home")
        #expect(n.token == "tk_secret123")
        #expect(n.tokenFile == token)
        let hook = config.outputs[1]
        #expect(hook.routes == ["leak"])
        #expect(hook.timeout == .seconds(3))
        #expect(hook.concurrency == 2)
        #expect(hook.tls.caFile == "/etc/ssl/private-ca.pem")
        guard case .webhook(let w) = hook.kind else { Issue.record("not webhook"); return }
        #expect(w.method == "PUT")
        #expect(w.headers.map(\.name) == ["Authorization", "X-Source"])
        #expect(w.headers.map(\.value) == ["Bearer abc", "pushbridge"])
        #expect(w.body?.source == "{{ message.title }}: {{ message.body }}")

        let text = config.describe()
        #expect(text.contains("outputs (2):"))
        #expect(text.contains("1. phones: ntfy url=https://ntfy.example.com/home token_file=\(token)"))
        #expect(text.contains("routes=all timeout=10s concurrency=4 tls: ca_file=- insecure=false"))
        #expect(text.contains("2. hook: webhook url=http://127.0.0.1:9/hook method=PUT body=\"{{ message.title }}: {{ message.body }}\" headers=Authorization,X-Source"))
        #expect(!text.contains("tk_secret123"), "the token never shows")
        #expect(!text.contains("Bearer abc"), "header values (often secrets) never show")
    }

    @Test func noOutputsIsNone() throws {
        let config = try loadConfig(Self.routes)
        #expect(config.outputs.isEmpty)
        #expect(config.describe().contains("outputs: none"))
    }

    @Test func positionedErrorsAllInOneRun() {
        let errors = configErrors(Self.routes + """
            outputs:
              - name: a
                ntfy: {url: "https://ntfy.example.com/home", tokn_file: x}
              - name: a
                webhook: {url: "http://x/hook"}
              - name: b
              - name: c
                ntfy: {url: "https://n/t"}
                webhook: {url: "http://x/hook"}
              - name: d
                routes: [dor]
                concurency: 3
                webhook: {url: "ftp://x/hook", method: DELETE}
              - name: e
                ntfy: {url: "https://ntfy.example.com"}
                timeout: 0s
                tls: {insecure: yes, ca: x}
              - name: f
                webpush: {vapid_key_file: /x}
              - name: g
                concurrency: 0
                webhook: {url: "http://x/h", headers: {"Bad Name": x, X-Ok: "a\\nb"}, body: "{{ message.title"}
            """)
        // One run reports every problem, each at its position.
        let expected = [
            "bridge.yml:6:50: error: unknown key 'tokn_file' in ntfy; did you mean 'token_file'?",
            "bridge.yml:7:11: error: duplicate output name 'a' (first at line 5); give each output a unique 'name'",
            "bridge.yml:9:5: error: output 'b' needs one of 'ntfy', 'webhook' or 'webpush'",
            "bridge.yml:12:5: error: output 'c' has 'ntfy' and 'webhook': one kind per output",
            "bridge.yml:14:14: error: unknown route 'dor' in an output's 'routes'; did you mean 'door'?",
            "bridge.yml:15:5: error: unknown key 'concurency' in an output; did you mean 'concurrency'?",
            "bridge.yml:16:20: error: 'url' must be an http:// or https:// URL with a host, got \"ftp://x/hook\"",
            "bridge.yml:16:44: error: 'method' must be one of \"POST\", \"PUT\" or \"PATCH\", got \"DELETE\"",
            "bridge.yml:18:17: error: 'url' must name the topic, e.g. https://ntfy.example.com/home, got \"https://ntfy.example.com\"",
            "bridge.yml:19:14: error: 'timeout' must be between 100ms and 10m, got 0s",
            "bridge.yml:20:21: error: 'insecure' must be true or false, got yes (YAML 1.1 booleans are not accepted; write true)",
            "bridge.yml:20:26: error: unknown key 'ca' in an output's tls; known keys: ca_file, insecure",
            "bridge.yml:22:5: error: output 'f': 'webpush' needs 'monitoring.http' (browsers subscribe on its /subscribe page)",
            "bridge.yml:22:14: error: 'webpush' needs 'subject'",
            "bridge.yml:22:14: error: 'webpush' needs 'subscribe_token_file'",
            "bridge.yml:24:18: error: 'concurrency' must be between 1 and 256, got 0",
            "bridge.yml:25:44: error: invalid header name \"Bad Name\": letters, digits and !#$%&'*+-.^_`|~ only",
            "bridge.yml:25:65: error: header 'X-Ok' must be one line",
            "bridge.yml:25:81: error: invalid template in 'body': expected '}}' to close '{{'",
        ]
        #expect(errors == expected, "\(errors.joined(separator: "\n"))")
    }

    @Test func unreadableTokenFileIsAnErrorWithoutTheToken() {
        let errors = configErrors(Self.routes + """
            outputs:
              - name: phones
                ntfy: {url: "https://ntfy.example.com/home", token_file: /nonexistent/ntfy-token}
            """)
        #expect(errors.count == 1)
        #expect(errors.first?.hasPrefix("bridge.yml:6:62: error: cannot read 'token_file' '/nonexistent/ntfy-token'") == true, "\(errors)")
    }

    @Test func outputsMustBeAList() {
        #expect(configErrors(Self.routes + "outputs: {name: x}\n") == ["bridge.yml:4:10: error: 'outputs' must be a list, got a mapping"])
    }
}
