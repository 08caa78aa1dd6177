import Foundation
import Testing
@testable import PushBridge

/// `state.redis`: the URL forms, the password from the URL or a file, the journal it needs,
/// the errors and what `check` prints.
@Suite struct StateConfigTests {
    static let base = "routes: [{topic: a/#}]\njournal: {path: /tmp/j}\n"

    @Test func absentStateKeepsTheMemoryInTheJournal() throws {
        let c = try loadConfig(Self.base)
        #expect(c.state == nil)
        #expect(c.describe().contains("\nstate: journal\n"))
        #expect(try loadConfig("routes: [{topic: a/#}]\n").describe().contains("\nstate: memory (no journal)\n"))
    }

    @Test func aRedisURLWithItsDefaults() throws {
        let c = try loadConfig(Self.base + "state:\n  redis:\n    url: redis://127.0.0.1:6380/2\n")
        let redis = try #require(c.state?.redis)
        #expect(redis.address == RedisAddress(place: .tcp(host: "127.0.0.1", port: 6380), database: 2))
        #expect(redis.prefix == "pushbridge:")
        #expect(redis.claimAfter == .seconds(30))
        #expect(c.describe().contains("\nstate: redis url=redis://127.0.0.1:6380/2 prefix=pushbridge: claim_after=30s\n"))
    }

    @Test func aUnixSocketPrefixAndClaimAfter() throws {
        let c = try loadConfig(Self.base + "state:\n  redis: {url: 'unix:///run/redis/redis.sock?db=1', prefix: 'home:', claim_after: 10s}\n")
        let redis = try #require(c.state?.redis)
        #expect(redis.address.place == .socket("/run/redis/redis.sock"))
        #expect(redis.address.database == 1)
        #expect(redis.prefix == "home:")
        #expect(redis.claimAfter == .seconds(10))
    }

    @Test func thePasswordOfTheURLIsUsedAndNeverPrinted() throws {
        let c = try loadConfig(Self.base + "state:\n  redis: {url: 'redis://:s3cret@10.0.0.5:6379/0'}\n")
        #expect(c.state?.redis?.address.password == "s3cret")
        let text = c.describe()
        #expect(!text.contains("s3cret"))
        #expect(text.contains("state: redis url=redis://:***@10.0.0.5:6379/ prefix="))
    }

    @Test func thePasswordFromAFileRelativeToTheConfig() throws {
        let dir = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "from-file\nsecond line\n".write(toFile: dir + "/redis_pw", atomically: true, encoding: .utf8)
        let c = try loadConfig(Self.base + "state:\n  redis: {url: 'redis://127.0.0.1', password_file: redis_pw}\n",
                               path: dir + "/bridge.yml")
        #expect(c.state?.redis?.address.password == "from-file")
        #expect(c.state?.redis?.passwordFile == dir + "/redis_pw")
        let text = c.describe()
        #expect(!text.contains("from-file"))
        #expect(text.contains("password_file=\(dir)/redis_pw"))
    }

    @Test func errorsArePositionedAndSayWhatToDo() {
        let cases: [(String, String)] = [
            ("routes: [{topic: a/#}]\nstate:\n  redis: {url: 'redis://127.0.0.1'}\n",
             "bridge.yml:3:3: error: 'state.redis' needs a 'journal': each replica acknowledges a message once it is in its own journal and removes it once its decision is stored in Redis; add 'journal: {path: /var/lib/pushbridge/journal}'"),
            (Self.base + "state:\n  redis: {url: 'rediss://:pw@cache:6380'}\n",
             "bridge.yml:4:16: error: invalid 'url': rediss:// (TLS) needs hiredis 1.0 or later, and Debian 12's libhiredis 0.14 has no TLS: use redis:// on a trusted network, or a unix:// socket"),
            (Self.base + "state:\n  redis: {url: 'redis://:pw@cache:99999'}\n",
             "bridge.yml:4:16: error: invalid 'url': 'redis://:***@cache:99999': the port must be 1-65535"),
            (Self.base + "state:\n  redis: {url: 'http://cache'}\n",
             "bridge.yml:4:16: error: invalid 'url': 'http://cache': a Redis URL starts with redis:// or unix://"),
            (Self.base + "state:\n  redis: {url: 'redis://:a@h', password_file: /x}\n",
             "bridge.yml:4:47: error: the url has a password and 'password_file' is set: keep one"),
            (Self.base + "state:\n  redis: {url: 'redis://h', password_file: /nonexistent/pw}\n",
             "bridge.yml:4:44: error: cannot read 'password_file' '/nonexistent/pw': No such file or directory"),
            (Self.base + "state:\n  redis: {url: 'redis://h', prefix: 'a b'}\n",
             "bridge.yml:4:37: error: 'prefix' must be a non-empty word without spaces (every key starts with it), got \"a b\""),
            (Self.base + "state:\n  redis: {url: 'redis://h', claim_after: 100ms}\n",
             "bridge.yml:4:42: error: 'claim_after' must be between 1s and 1d, got 100ms"),
            (Self.base + "state:\n  redis: {}\n",
             "bridge.yml:4:10: error: 'state.redis' needs 'url'"),
        ]
        for (yaml, expected) in cases {
            #expect(configErrors(yaml) == [expected], "\(yaml)")
        }
    }

    @Test func unknownKeysSuggestTheNearOne() {
        let errors = configErrors(Self.base + "state:\n  redis: {url: 'redis://h', claim_afer: 5s}\n")
        #expect(errors.count == 1)
        #expect(errors.first?.contains("claim_after") == true)
        #expect(configErrors(Self.base + "state:\n  reddis: {url: 'redis://h'}\n").first?.contains("redis") == true)
    }

    @Test func theMaskHidesOnlyThePassword() {
        #expect(ConfigReader.maskingPassword("redis://:pw@h:1/0") == "redis://:***@h:1/0")
        #expect(ConfigReader.maskingPassword("redis://user:pw@h") == "redis://user:***@h")
        #expect(ConfigReader.maskingPassword("redis://h:6379") == "redis://h:6379")
        #expect(ConfigReader.maskingPassword("unix:///run/r.sock") == "unix:///run/r.sock")
    }

    @Test func redisSilencesTheSharedFilterWarning() throws {
        let yaml = "routes:\n  - {topic: a/#, share: g}\njournal: {path: /tmp/j}\n"
            + "extension:\n  filters:\n    - dedupe: {key: \"{{ topic }}\", window: 1m}\n"
        #expect(try loadConfig(yaml).warnings.count == 1)
        #expect(try loadConfig(yaml + "state:\n  redis: {url: 'redis://127.0.0.1'}\n").warnings.isEmpty)
    }
}
