import Testing
@testable import PushBridge

@Suite struct RedisAddressTests {
    @Test(arguments: [
        ("redis://127.0.0.1:6379/0", RedisAddress(place: .tcp(host: "127.0.0.1", port: 6379)), "redis://127.0.0.1:6379/"),
        ("redis://redis", RedisAddress(place: .tcp(host: "redis", port: 6379)), "redis://redis:6379/"),
        ("redis://:s3cret@redis:6380/2", RedisAddress(place: .tcp(host: "redis", port: 6380), database: 2, password: "s3cret"),
         "redis://:***@redis:6380/2"),
        ("redis://default:s3cret@[::1]:7000", RedisAddress(place: .tcp(host: "::1", port: 7000), password: "s3cret"),
         "redis://:***@[::1]:7000/"),
        ("unix:///run/redis/redis.sock", RedisAddress(place: .socket("/run/redis/redis.sock")), "unix:///run/redis/redis.sock"),
        ("unix:///run/redis.sock?db=3", RedisAddress(place: .socket("/run/redis.sock"), database: 3), "unix:///run/redis.sock?db=3"),
    ])
    func parses(_ url: String, _ expected: RedisAddress, _ shown: String) throws {
        let address = try RedisAddress.parse(url).get()
        #expect(address == expected)
        #expect(address.shown == shown)
        #expect(!address.shown.contains("s3cret"))
    }

    @Test(arguments: [
        ("rediss://redis:6380", "rediss:// (TLS) needs hiredis 1.0 or later"),
        ("http://redis", "starts with redis:// or unix://"),
        ("redis://redis:0", "the port must be 1-65535"),
        ("redis://redis:http", "the port must be 1-65535"),
        ("redis://redis/x", "the path is a database number"),
        ("redis://s3cret@redis", "give the password as redis://:PASSWORD@host"),
        ("redis://:6379", "no host"),
        ("unix://run/redis.sock", "absolute path"),
        ("unix:///run/redis.sock?x=1", "?db=N"),
    ])
    func refuses(_ url: String, _ why: String) {
        guard case .failure(let e) = RedisAddress.parse(url) else {
            Issue.record("\(url) was accepted")
            return
        }
        #expect(e.description.contains(why), "\(e)")
    }
}
