import Foundation

/// The conditions' memory in Redis (`state.redis`; the scripts: `RedisConditionScripts`):
/// transitions decided atomically, due repeats and steps claimed by one replica, and the
/// whole set read back (every second, `RedisState`) so that each replica's engine knows every
/// condition (`ConditionEngine.reconcile`), its timer included.
final class RedisConditions: SharedConditions {
    /// How long a message's answer and a claim are kept.
    static let keep: Duration = .seconds(86_400)

    private let prefix: String
    private let client: String
    private let connection: RedisConnection
    private let batches: RedisBatches
    private let health: StateHealth
    private let observeScript = RedisScript(RedisConditionScripts.observe)
    private let saveScript = RedisScript(RedisConditionScripts.save)
    private let allScript = RedisScript(RedisConditionScripts.all)

    /// `client`: this replica's name in its claims (its `broker.client_id`).
    init(prefix: String, client: String, connection: RedisConnection, batches: RedisBatches, health: StateHealth) {
        self.prefix = prefix
        self.client = client
        self.connection = connection
        self.batches = batches
        self.health = health
    }

    private var setKey: String { prefix + "conditions" }
    private func key(_ id: String) -> String { prefix + "c:" + id }

    func observe(route: String, key: String, active: Bool, proposed: ConditionRecord, once: String,
                 completion: @escaping @Sendable (SharedConditionAnswer) -> Void) {
        let id = ConditionEngine.id(route, key)
        let arguments = [Array((active ? "1" : "0").utf8), Array(proposed.stored.utf8), Array(proposed.alertID.utf8),
                         Array(id.utf8), Array(String(Self.keep.nanoseconds / 1_000_000).utf8)]
        batches.submit(RedisBatches.Call(script: observeScript, keys: [self.key(id), setKey, prefix + "once:" + once],
                                         arguments: arguments, op: "condition_observe") { reply in
            let text = reply.text ?? "N"
            let body = String(text.dropFirst())
            switch text.first {
            case "R": completion(Self.condition(route: route, key: key, body).map { .raised($0.record) } ?? .raised(proposed))
            case "A": completion(Self.condition(route: route, key: key, body).map { .alreadyRaised($0) } ?? .notRaised)
            case "C": completion(Self.condition(route: route, key: key, body).map { .cleared($0) } ?? .notRaised)
            default: completion(.notRaised)
            }
        })
    }

    func save(_ r: ConditionRecord) {
        let arguments = [r.alertID, r.stored, r.acknowledged ? "1" : "0", r.acknowledgedBy ?? "", String(r.repeats), String(r.step),
                         JSONValue.numberText(r.snoozedUntil ?? 0)].map { Array($0.utf8) }
        batches.submit(RedisBatches.Call(script: saveScript, keys: [key(ConditionEngine.id(r.route, r.key))], arguments: arguments,
                                         op: "condition_save") { _ in })
    }

    func claim(_ token: String) -> Bool {
        let reply = health.measured("condition_claim") { () throws(RedisError) in
            try connection.command(["SET", prefix + "due:" + token, client, "NX", "PX", String(Self.keep.nanoseconds / 1_000_000)]).accepted()
        }
        return reply == .status("OK")
    }

    func all() -> [SharedCondition]? {
        guard let items = health.measured("condition_sync", { () throws(RedisError) in
            try allScript.run(on: connection, keys: [setKey], arguments: [Array((prefix + "c:").utf8)]).elements(of: "the conditions' script")
        }) else { return nil }
        var out: [SharedCondition] = []
        var i = 0
        while i + 1 < items.count {
            let id = items[i].text ?? ""
            let parts = id.split(separator: "\u{1F}", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, let c = Self.condition(route: String(parts[0]), key: String(parts[1]), items[i + 1].text ?? "") {
                out.append(c)
            }
            i += 2
        }
        return out
    }

    /// A condition from its description (see `RedisConditionScripts`).
    static func condition(route: String, key: String, _ text: String) -> SharedCondition? {
        let f = text.split(separator: "\u{1E}", maxSplits: 5, omittingEmptySubsequences: false).map(String.init)
        guard f.count == 6, let r = ConditionRecord(route: route, key: key, stored: f[5]) else { return nil }
        let snooze = Double(f[4]) ?? 0
        return SharedCondition(record: r, acknowledged: f[0] == "1", acknowledgedBy: f[1], repeats: Int(f[2]) ?? 0,
                               step: Int(f[3]) ?? 0, snoozedUntil: snooze > 0 ? snooze : nil)
    }
}
