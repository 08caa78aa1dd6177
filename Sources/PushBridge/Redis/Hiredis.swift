import CHiredis

/// hiredis, loaded with `dlopen` the first time a Redis connection is made (see
/// `Sources/CHiredis`): a bridge that keeps its state in its journal alone never maps it.
enum Hiredis {
    /// The library's functions, or why they could not be loaded. `@unchecked Sendable`: the
    /// table is written once, here, and only read after (function pointers of hiredis's own).
    private struct Loaded: @unchecked Sendable {
        var table = pb_hiredis()
        var error: String?
    }
    private static let loaded: Loaded = {
        var loaded = Loaded()
        loaded.error = pb_hiredis_load(&loaded.table).map { String(cString: $0) }
        return loaded
    }()

    /// Why hiredis could not be loaded (`nil` when it was).
    static var loadError: String? { loaded.error }

    /// A connection to `host`:`port` within `milliseconds`, or why there is none.
    static func connect(host: String, port: Int, milliseconds: Int) -> Result<UnsafeMutablePointer<redisContext>, RedisError> {
        guard let connect = loaded.table.connect_with_timeout else { return .failure(notLoaded) }
        return checked(connect(host, Int32(port), pb_hiredis_timeval(milliseconds)))
    }

    /// A connection to the unix socket `path` within `milliseconds`, or why there is none.
    static func connect(socket path: String, milliseconds: Int) -> Result<UnsafeMutablePointer<redisContext>, RedisError> {
        guard let connect = loaded.table.connect_unix_with_timeout else { return .failure(notLoaded) }
        return checked(connect(path, pb_hiredis_timeval(milliseconds)))
    }

    private static var notLoaded: RedisError {
        RedisError(description: "hiredis could not be loaded (\(loaded.error ?? "unknown")); install Debian's libhiredis0.14")
    }

    private static func checked(_ context: UnsafeMutablePointer<redisContext>?) -> Result<UnsafeMutablePointer<redisContext>, RedisError> {
        guard let context else { return .failure(RedisError(description: "hiredis could not allocate a connection")) }
        if context.pointee.err != 0 {
            let why = String(cString: pb_hiredis_errstr(context))
            free(context)
            return .failure(RedisError(description: why))
        }
        return .success(context)
    }

    /// Reads and writes on `context` wait at most `milliseconds`.
    static func setTimeout(_ context: UnsafeMutablePointer<redisContext>, milliseconds: Int) {
        _ = loaded.table.set_timeout?(context, pb_hiredis_timeval(milliseconds))
    }

    /// Sends one command (its arguments as bytes) and reads its reply.
    static func command(_ context: UnsafeMutablePointer<redisContext>, _ arguments: [[UInt8]]) -> Result<RedisReply, RedisError> {
        guard let send = loaded.table.command_argv, let release = loaded.table.free_reply_object else {
            return .failure(notLoaded)
        }
        let lengths = arguments.map(\.count)
        // hiredis copies each argument into its output buffer before it returns.
        let raw: UnsafeMutableRawPointer? = withPointers(arguments) { pointers in
            lengths.withUnsafeBufferPointer { send(context, Int32(arguments.count), pointers.baseAddress, $0.baseAddress) }
        }
        guard let raw else {
            let why = context.pointee.err != 0 ? String(cString: pb_hiredis_errstr(context)) : "no reply"
            return .failure(RedisError(description: why))
        }
        defer { release(raw) }
        return .success(reply(raw.assumingMemoryBound(to: redisReply.self)))
    }

    /// Sends every command of `commands` at once (one write), then reads their replies in
    /// order (a pipeline: one round trip for all of them).
    static func pipeline(_ context: UnsafeMutablePointer<redisContext>, _ commands: [[[UInt8]]]) -> Result<[RedisReply], RedisError> {
        guard let append = loaded.table.append_command_argv, let get = loaded.table.get_reply,
              let release = loaded.table.free_reply_object else { return .failure(notLoaded) }
        func failure() -> Result<[RedisReply], RedisError> {
            .failure(RedisError(description: context.pointee.err != 0 ? String(cString: pb_hiredis_errstr(context)) : "no reply"))
        }
        for arguments in commands {
            let lengths = arguments.map(\.count)
            // hiredis copies the arguments into its output buffer before it returns.
            let status = withPointers(arguments) { pointers in
                lengths.withUnsafeBufferPointer { append(context, Int32(arguments.count), pointers.baseAddress, $0.baseAddress) }
            }
            if status != REDIS_OK { return failure() }
        }
        var replies: [RedisReply] = []
        replies.reserveCapacity(commands.count)
        for _ in commands {
            var raw: UnsafeMutableRawPointer?
            guard get(context, &raw) == REDIS_OK, let raw else { return failure() }
            replies.append(reply(raw.assumingMemoryBound(to: redisReply.self)))
            release(raw)
        }
        return .success(replies)
    }

    /// Closes `context` and frees it.
    static func free(_ context: UnsafeMutablePointer<redisContext>) {
        loaded.table.free?(context)
    }

    /// `body` with a C array of pointers to each argument's bytes (an empty one gets a valid pointer).
    private static func withPointers<R>(_ arguments: [[UInt8]], _ body: (UnsafeMutableBufferPointer<UnsafePointer<CChar>?>) -> R) -> R {
        var storage: [UnsafeMutablePointer<CChar>] = []
        storage.reserveCapacity(arguments.count)
        defer { for p in storage { p.deallocate() } }
        for a in arguments {
            let p = UnsafeMutablePointer<CChar>.allocate(capacity: max(a.count, 1))
            a.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress { UnsafeMutableRawPointer(p).copyMemory(from: base, byteCount: a.count) }
            }
            storage.append(p)
        }
        var pointers = storage.map { UnsafePointer<CChar>?($0) }
        return pointers.withUnsafeMutableBufferPointer { body($0) }
    }

    /// The reply `r` points to, copied.
    private static func reply(_ r: UnsafePointer<redisReply>) -> RedisReply {
        let bytes = { () -> [UInt8] in
            guard let s = r.pointee.str else { return [] }
            return Array(UnsafeRawBufferPointer(start: s, count: r.pointee.len))
        }
        switch r.pointee.type {
        case REDIS_REPLY_STATUS: return .status(String(decoding: bytes(), as: UTF8.self))
        case REDIS_REPLY_ERROR: return .error(String(decoding: bytes(), as: UTF8.self))
        case REDIS_REPLY_INTEGER: return .integer(r.pointee.integer)
        case REDIS_REPLY_STRING: return .bytes(bytes())
        case REDIS_REPLY_ARRAY:
            guard let elements = r.pointee.element else { return .array([]) }
            return .array((0..<r.pointee.elements).map { i in elements[i].map { reply($0) } ?? .null })
        default: return .null
        }
    }
}
