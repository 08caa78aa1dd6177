import Foundation
import Synchronization
import Testing
@testable import PushBridge

/// hiredis (loaded with dlopen) against a real redis-server on loopback: replies of every
/// kind, binary values, scripts run atomically and loaded again after SCRIPT FLUSH, the
/// password, the unix socket, a server that stops and comes back.
@Suite("Redis: a connection through hiredis to a real redis-server")
struct RedisConnectionTests {
    @Test func everyKindOfReply() throws {
        let redis = try TestRedis()
        let c = RedisConnection(address: RedisAddress(place: .tcp(host: "127.0.0.1", port: redis.port)))
        #expect(try c.command(["PING"]) == .status("PONG"))
        let binary: [UInt8] = [0, 255, 10, 13, 0x80, 0]
        #expect(try c.command(bytes: [Array("SET".utf8), Array("k".utf8), binary]) == .status("OK"))
        #expect(try c.command(["GET", "k"]) == .bytes(binary))
        #expect(try c.command(["GET", "missing"]) == .null)
        #expect(try c.command(["INCRBY", "n", "41"]) == .integer(41))
        #expect(try c.command(["RPUSH", "l", "a", "", "c"]) == .integer(3))
        #expect(try c.command(["LRANGE", "l", "0", "-1"]) == .array([.bytes(Array("a".utf8)), .bytes([]), .bytes(Array("c".utf8))]))
        guard case .error(let why) = try c.command(["INCR", "l"]) else { Issue.record("no error reply"); return }
        #expect(why.hasPrefix("WRONGTYPE"))
        #expect(try c.command(["NOSUCHCOMMAND"]).text == nil)
    }

    @Test func scriptsRunAtomicallyAndAreLoadedAgainAfterAFlush() throws {
        let redis = try TestRedis()
        let c = RedisConnection(address: RedisAddress(place: .tcp(host: "127.0.0.1", port: redis.port)))
        // Set-if-absent with its previous value: the read-decide-write a dedupe needs.
        let script = RedisScript("""
            local old = redis.call('GET', KEYS[1])
            if old then return {0, old} end
            redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
            return {1, ARGV[1]}
            """)
        #expect(try script.run(on: c, keys: ["d:1"], arguments: [Array("first".utf8), Array("60000".utf8)])
                == .array([.integer(1), .bytes(Array("first".utf8))]))
        #expect(try script.run(on: c, keys: ["d:1"], arguments: [Array("second".utf8), Array("60000".utf8)])
                == .array([.integer(0), .bytes(Array("first".utf8))]))
        #expect(try c.command(["SCRIPT", "FLUSH"]) == .status("OK"))
        #expect(try script.run(on: c, keys: ["d:2"], arguments: [Array("x".utf8), Array("60000".utf8)])
                == .array([.integer(1), .bytes(Array("x".utf8))]))
        // Many connections at once: one of them wins each key.
        let winners = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let own = RedisConnection(address: c.address)
            for k in 0..<50 {
                if case .array(let r)? = try? script.run(on: own, keys: ["race:\(k)"], arguments: [Array("v".utf8), Array("60000".utf8)]),
                   r.first == .integer(1) {
                    winners.withLock { $0 += 1 }
                }
            }
        }
        #expect(winners.withLock { $0 } == 50)
    }

    @Test func passwordDatabaseAndSocket() throws {
        let redis = try TestRedis(password: "pw-\(UUID().uuidString)")
        let good = try RedisAddress.parse("redis://:\(redis.password!)@127.0.0.1:\(redis.port)/3").get()
        let c = RedisConnection(address: good)
        #expect(try c.command(["SET", "where", "db3"]) == .status("OK"))
        let socket = RedisConnection(address: RedisAddress(place: .socket(redis.socket), database: 3, password: redis.password))
        #expect(try socket.command(["GET", "where"]) == .bytes(Array("db3".utf8)))
        let wrong = RedisConnection(address: RedisAddress(place: .tcp(host: "127.0.0.1", port: redis.port), password: "wrong"))
        #expect(throws: RedisError.self) { try wrong.command(["PING"]) }
        do {
            _ = try wrong.command(["PING"])
        } catch {
            #expect(error.description.hasPrefix("AUTH refused") && !error.description.contains("wrong"), "\(error)")
        }
        let none = RedisConnection(address: RedisAddress(place: .tcp(host: "127.0.0.1", port: redis.port)))
        guard case .error(let why) = try none.command(["GET", "where"]) else { Issue.record("no NOAUTH"); return }
        #expect(why.hasPrefix("NOAUTH"))
    }

    @Test func aServerThatStopsAndComesBack() throws {
        let redis = try TestRedis(appendOnly: true)
        let c = RedisConnection(address: RedisAddress(place: .tcp(host: "127.0.0.1", port: redis.port)), timeoutMilliseconds: 1_000)
        #expect(try c.command(["SET", "kept", "1"]) == .status("OK"))
        redis.stop()
        #expect(throws: RedisError.self) { try c.command(["GET", "kept"]) }
        #expect(!c.isConnected)
        #expect(throws: RedisError.self) { try c.command(["GET", "kept"]) }
        try redis.start()
        // Connected anew; the append-only file kept the value.
        let got = try c.command(["GET", "kept"])
        #expect(got == .bytes(Array("1".utf8)), "\(got); log: \((try? String(contentsOfFile: redis.logFile, encoding: .utf8))?.suffix(1500) ?? "")")
        #expect(c.isConnected)
    }
}
