import Foundation

/// A seeded SplitMix64 generator: the same seed gives the same inputs on every run,
/// so a failure found by a random test reproduces exactly.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Byte-level mutations used by the random-input tests (the same kinds libFuzzer applies).
enum Mutations {
    /// Applies 1 to `maxSteps` random mutations: bit flips, byte changes, erasures,
    /// truncation, duplication, and insertions of `tokens` (syntax of the format under test).
    static func mutate(_ input: [UInt8], tokens: [String], maxSteps: Int = 4,
                       using rng: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...maxSteps, using: &rng) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<8, using: &rng) {
            case 0 where !bytes.isEmpty:
                bytes[position] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &rng)
            case 1 where !bytes.isEmpty:
                bytes[position] = UInt8.random(in: 0...255, using: &rng)
            case 2 where !bytes.isEmpty:
                let end = min(bytes.count, position + Int.random(in: 1...16, using: &rng))
                bytes.removeSubrange(position..<end)
            case 3:
                bytes = Array(bytes.prefix(position))
            case 4 where !bytes.isEmpty:
                let end = min(bytes.count, position + Int.random(in: 1...64, using: &rng))
                bytes.insert(contentsOf: bytes[position..<end], at: position)
            case 5:
                bytes.insert(UInt8.random(in: 0...255, using: &rng), at: position)
            default:
                let token = tokens.randomElement(using: &rng) ?? ""
                bytes.insert(contentsOf: Array(token.utf8), at: min(position, bytes.count))
            }
        }
        return bytes
    }

    /// Random bytes, biased towards `alphabet` so the parser under test gets past its first check.
    static func soup(length: Int, alphabet: [String], using rng: inout SeededGenerator) -> [UInt8] {
        var bytes: [UInt8] = []
        while bytes.count < length {
            if Bool.random(using: &rng), let token = alphabet.randomElement(using: &rng) {
                bytes += Array(token.utf8)
            } else {
                bytes.append(UInt8.random(in: 0...255, using: &rng))
            }
        }
        return bytes
    }
}

/// The resident set size of this process, from `/proc/self/status` (Linux), in bytes.
enum ResidentMemory {
    static func current() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let digits = line.dropFirst("VmRSS:".count).filter(\.isNumber)
            return Int(digits).map { $0 * 1024 }
        }
        return nil
    }
}
