import Foundation
import Synchronization

/// The remembering filters' memory in Redis (`state.redis`): every replica decides a key's
/// `dedupe`, `rate_limit` and `changed` against the same memory, atomically
/// (`RedisFilterScript`), so two replicas that see the same report at the same moment do
/// not both let it through.
///
/// One script call per message and route whatever the number of its filters, sent with the
/// other calls waiting (`RedisBatches`: one round trip for many messages). Keys:
/// `<prefix>f:<filter>:<key>` (the filter by a hash of its name and definition: a changed
/// filter starts afresh, as in the journal) and `<prefix>once:<message id>/<route>` (the
/// answers, so a replayed message is decided as it was the first time; kept as long as the
/// longest window of its filters, at least 10 minutes, a day when a `changed` filter decided it).
final class RedisFilterMemory: SharedFilterMemory {
    /// How long a message's answers are kept for a replay when a `changed` filter decided it
    /// (a replay after that would find its own value recorded and call it unchanged).
    static let keepDecisions: Duration = .seconds(86_400)
    /// The least time a message's answers are kept; with only `dedupe` and `rate_limit`, as
    /// long as their longest window (a replay after it finds nothing of the first decision,
    /// and is let through again rather than swallowed).
    static let keepDecisionsAtLeast: Duration = .seconds(600)
    /// How long a `changed` value is kept after it was last seen (a key nobody reports for a
    /// month starts afresh).
    static let keepValues: Duration = .seconds(30 * 86_400)

    private let prefix: String
    private let batches: RedisBatches
    private let script = RedisScript(RedisFilterScript.source)
    /// The hash of each filter identity seen (identities are long: name and definition).
    private let filterIDs = Mutex<[String: String]>([:])

    init(prefix: String, batches: RedisBatches) {
        self.prefix = prefix
        self.batches = batches
    }

    func decide(_ steps: [FilterMemoryStep], once: String, completion: @escaping @Sendable ([FilterMemoryAnswer]) -> Void) {
        batches.submit(call(steps, once: prefix + "once:" + once, op: "filter_decide") { reply in
            let letters = reply.text ?? ""
            completion(letters.compactMap(FilterMemoryAnswer.init(rawValue:)))
        })
    }

    func teach(_ steps: [FilterMemoryStep]) {
        batches.submit(call(steps, once: "", op: "filter_teach") { _ in })
    }

    /// The script call for `steps` (see `RedisFilterScript` for the arguments).
    func call(_ steps: [FilterMemoryStep], once: String, op: String,
              completion: @escaping @Sendable (RedisReply) -> Void) -> RedisBatches.Call {
        var keys: [String] = []
        keys.reserveCapacity(steps.count + 1)
        var arguments: [[UInt8]] = [Self.bytes(steps.count), Self.bytes(Self.ms(Self.keep(steps)))]
        for step in steps {
            keys.append(prefix + "f:" + filterID(step.filter) + ":" + step.key)
            switch step.kind {
            case .window(let window, let max):
                arguments += [Array("w".utf8), Self.bytes(Swift.max(Self.ms(window), 1)), Self.bytes(max), [], [], []]
            case .changed(let value, let deadband, let deliverFirst):
                arguments += [Array("c".utf8), Array(value.utf8), Self.number(value), Array(JSONValue.numberText(deadband).utf8),
                              Array((deliverFirst ? "1" : "0").utf8), Self.bytes(Self.ms(Self.keepValues))]
            case .teach(let value):
                arguments += [Array("t".utf8), Array(value.utf8), Self.number(value), Self.bytes(Self.ms(Self.keepValues)), [], []]
            }
        }
        keys.append(once)
        return RedisBatches.Call(script: script, keys: keys, arguments: arguments, op: op, completion: completion)
    }

    /// How long the answers to `steps` are kept (see `keepDecisions`).
    static func keep(_ steps: [FilterMemoryStep]) -> Duration {
        var keep = keepDecisionsAtLeast
        for step in steps {
            switch step.kind {
            case .window(let window, _): keep = max(keep, window)
            case .changed, .teach: return keepDecisions
            }
        }
        return keep
    }

    /// A short, stable name for the filter `identity` (FNV-1a 64, hex).
    private func filterID(_ identity: String) -> String {
        if let known = filterIDs.withLock({ $0[identity] }) { return known }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in identity.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let id = String(hash, radix: 16)
        filterIDs.withLock { $0[identity] = id }
        return id
    }

    /// `value` as a number the script can compare (empty when it does not read as one).
    static func number(_ value: String) -> [UInt8] {
        guard let x = JSONValue(numberText: value)?.arithmeticValue, x.isFinite else { return [] }
        return Array(String(x).utf8)
    }

    /// Whole milliseconds of `d`.
    static func ms(_ d: Duration) -> Int64 { d.nanoseconds / 1_000_000 }

    static func bytes(_ n: some BinaryInteger) -> [UInt8] { Array(String(n).utf8) }
}
