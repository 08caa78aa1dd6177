import Testing
@testable import PushBridge

/// Bounded random input for `APNsBodyReader.read`, the reader behind `input: apns`.
@Suite("Fuzz: APNs body reader")
struct APNsFuzzTests {
    static let keys = ["aps", "alert", "title", "subtitle", "body", "badge", "sound", "name", "thread-id", "category",
                       "content-available", "mutable-content", "target-content-id", "interruption-level",
                       "relevance-score", "filter-criteria", "critical", "volume"]

    /// A random body shaped like an APNs body often enough to get past the first checks.
    static func body(_ rng: inout SeededGenerator) -> JSONValue {
        var aps: JSONObject = [:]
        for key in keys where Bool.random(using: &rng) {
            aps[key] = RandomJSON.value(depth: 2, keys: keys, using: &rng)
        }
        var top: JSONObject = [:]
        if Int.random(in: 0..<10, using: &rng) > 0 { top["aps"] = .object(aps) }
        for _ in 0..<Int.random(in: 0...3, using: &rng) {
            top[keys.randomElement(using: &rng)!] = RandomJSON.value(depth: 3, keys: keys, using: &rng)
        }
        return Int.random(in: 0..<20, using: &rng) == 0 ? RandomJSON.value(depth: 2, using: &rng) : .object(top)
    }

    @Test("random bodies are read or rejected as invalid payloads", arguments: [UInt64(1), 2, 3])
    func randomBodies(seed: UInt64) async {
        var rng = SeededGenerator(seed: seed)
        var accepted = 0
        for _ in 0..<3_000 {
            await Task.yield()  // let other suites' tasks run (2-core machines)
            let body = Self.body(&rng)
            do throws(Rejection) {
                let parsed = try APNsBodyReader.read(body)
                accepted += 1
                var request = NotificationRequest(id: "0a1b2c3d-0000-4000-8000-00000000abcd", pushType: .alert,
                                                  priority: 10, mutableContent: parsed.mutableContent,
                                                  contentAvailable: parsed.contentAvailable, content: parsed.content)
                _ = try? request.validate()
                // What the reader accepted, written back as a body, reads back the same.
                let out = request.apnsBody
                let again = try APNsBodyReader.read(out)
                request.content = again.content
                #expect(request.apnsBody.jsonText == out.jsonText)
                if let badge = parsed.content.badge { #expect(Int64(badge) >= Int64(Int32.min)) }
                if let score = parsed.content.relevanceScore { #expect(score >= 0 && score <= 1) }
            } catch {
                #expect(error.reason == .invalidPayload, "\(error)")
            }
        }
        #expect(accepted > 20, "random bodies should sometimes be valid (\(accepted) were)")
    }

    @Test("bodies from bytes: random and mutated text", arguments: [UInt64(4)])
    func bodiesFromBytes(seed: UInt64) async {
        var rng = SeededGenerator(seed: seed)
        let seeds = [#"{"aps":{"alert":{"title":"T","body":"B"},"badge":3,"sound":{"name":"s"},"relevance-score":0.5}}"#,
                     #"{"aps":{"alert":"hi","content-available":1,"interruption-level":"critical"},"k":[1,{}]}"#]
        for _ in 0..<3_000 {
            await Task.yield()  // let other suites' tasks run (2-core machines)
            let bytes = Mutations.mutate(Array(seeds.randomElement(using: &rng)!.utf8), tokens: JSONFuzzTests.tokens + Self.keys.map { "\"\($0)\"" }, using: &rng)
            guard let body = try? JSONValue.parse(bytes) else { continue }
            do throws(Rejection) {
                _ = try APNsBodyReader.read(body)
            } catch {
                #expect(error.reason == .invalidPayload)
            }
        }
    }

    @Test("edge values of badge, relevance and flags")
    func edges() throws {
        func read(_ aps: JSONObject) -> APNsBodyReader.Parsed? { try? APNsBodyReader.read(.object(["aps": .object(aps)])) }
        #expect(read(["badge": .int(Int64(Int32.max))])?.content.badge == Int(Int32.max))
        #expect(read(["badge": .int(Int64(Int32.max) + 1)]) == nil)
        #expect(read(["badge": .int(.min)]) == nil)
        #expect(read(["badge": .double(1)]) == nil)
        #expect(read(["relevance-score": .double(.nan)]) == nil)
        #expect(read(["relevance-score": .double(.infinity)]) == nil)
        #expect(read(["relevance-score": .int(1)])?.content.relevanceScore == 1)
        #expect(read(["mutable-content": .int(2)])?.mutableContent == false)
        #expect(read(["content-available": .bool(true)])?.contentAvailable == true)
        #expect(read(["sound": .object([:])])?.content.sound == "default")
        #expect(read(["alert": .int(1)]) == nil)
        #expect(read(["interruption-level": .string("CRITICAL")]) == nil)
        #expect((try? APNsBodyReader.read(.object(["aps": .array([])]))) == nil)
    }
}
