import Synchronization

/// Random bits for message ids, without a system call per id.
///
/// `SystemRandomNumberGenerator` asks the kernel (`getrandom`) on every call: two system
/// calls per message on the hot path. Ids need uniqueness, not secrecy, so this is
/// xoshiro256** seeded once from the system generator, behind a lock (one caller, the
/// network thread, in practice).
final class IDGenerator: Sendable {
    /// The process-wide generator.
    static let shared = IDGenerator()

    private let state: Mutex<(UInt64, UInt64, UInt64, UInt64)>

    /// A generator seeded from `SystemRandomNumberGenerator`.
    convenience init() {
        var system = SystemRandomNumberGenerator()
        self.init(seed: (system.next(), system.next(), system.next(), system.next()))
    }

    /// A generator with a fixed seed (tests); an all-zero seed is replaced, as xoshiro needs.
    init(seed: (UInt64, UInt64, UInt64, UInt64)) {
        let s = seed == (0, 0, 0, 0) ? (0x9E37_79B9_7F4A_7C15, 1, 2, 3) : seed
        state = Mutex(s)
    }

    /// The next 128 random bits.
    func next128() -> (UInt64, UInt64) {
        state.withLock { s in (Self.step(&s), Self.step(&s)) }
    }

    /// One xoshiro256** step (Blackman and Vigna).
    private static func step(_ s: inout (UInt64, UInt64, UInt64, UInt64)) -> UInt64 {
        let result = rotate(s.1 &* 5, 7) &* 9
        let t = s.1 << 17
        s.2 ^= s.0
        s.3 ^= s.1
        s.1 ^= s.2
        s.0 ^= s.3
        s.2 ^= t
        s.3 = rotate(s.3, 45)
        return result
    }

    private static func rotate(_ x: UInt64, _ k: UInt64) -> UInt64 {
        (x << k) | (x >> (64 - k))
    }
}
