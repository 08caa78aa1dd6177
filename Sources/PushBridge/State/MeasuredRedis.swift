extension StateHealth {
    /// Runs one Redis operation `op`: its duration recorded when it answers, its failure (no
    /// connection, or an error reply the body throws) recorded otherwise; `nil` then.
    func measured<T>(_ op: String, _ body: () throws(RedisError) -> T) -> T? {
        let clock = ContinuousClock()
        let begin = clock.now
        do throws(RedisError) {
            let value = try body()
            succeeded(op, seconds: (clock.now - begin).seconds)
            return value
        } catch {
            failed(op, why: error.description)
            return nil
        }
    }
}

extension RedisReply {
    /// The reply, or the server's refusal as an error.
    func accepted() throws(RedisError) -> RedisReply {
        if case .error(let why) = self { throw RedisError(description: why) }
        return self
    }

    /// The elements of an array reply; anything else is an error naming `what`.
    func elements(of what: String) throws(RedisError) -> [RedisReply] {
        guard case .array(let items) = try accepted() else { throw RedisError(description: "\(what) answered \(self)") }
        return items
    }
}
