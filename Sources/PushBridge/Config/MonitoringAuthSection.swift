import Foundation

/// `monitoring.http_auth`: who may use the HTTP server.
package enum HTTPAuthConfig: Sendable, Equatable {
    /// `http_auth: none`: open to whoever reaches the address (`check` warns off loopback).
    case open
    /// `http_auth: {token_file}`: the token on the first line of `file` (absolute), read when
    /// the config loads.
    case token(file: String, token: HTTPToken)

    /// The token, or `nil` when open.
    package var token: HTTPToken? {
        if case .token(_, let token) = self { return token }
        return nil
    }
}

/// The secret of `monitoring.http_auth.token_file`. Its text never appears in a description,
/// a debug description or a mirror, so printing a config (or a test failure) cannot show it.
package struct HTTPToken: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The token's UTF-8 bytes.
    let bytes: [UInt8]

    init(_ text: String) { bytes = Array(text.utf8) }

    /// The token as text, for a request's `Authorization` header (the CLI's own requests).
    package var text: String { String(decoding: bytes, as: UTF8.self) }

    /// `(token hidden)`.
    package var description: String { "(token hidden)" }   // package: protocol witness
    /// `(token hidden)`.
    package var debugDescription: String { description }   // package: protocol witness
    /// No children: a dump shows nothing of the token.
    package var customMirror: Mirror { Mirror(self, children: [:]) }   // package: protocol witness
}

extension ConfigReader {
    /// A token shorter than this is accepted with a warning (guessing it is the only way in).
    static let recommendedHTTPTokenLength = 16

    /// Reads `http_auth` of `monitoring`: `none`, or `{token_file}` whose first line (trimmed)
    /// is the token; a missing, unreadable or empty file is an error on `token_file`. `nil`
    /// after any problem. `http` is the address it guards (the `none` warning names it).
    func readHTTPAuth(_ node: YAMLNode, http: HostPort?) -> HTTPAuthConfig? {
        if case .scalar(let s) = node {
            guard s.value == "none" else {
                error("'http_auth' must be \"none\" or a mapping with 'token_file', got \(show(node))", at: s.mark)
                return nil
            }
            if let http, !http.isLoopback {
                warn("the HTTP server on \(http) is open to everyone who can reach it ('http_auth: none'): it shows what happens in the home; set 'http_auth: {token_file: …}' unless only trusted machines reach that address", at: s.mark)
            }
            return .open
        }
        guard let f = fields(node, key: "http_auth", context: "monitoring.http_auth",
                             known: ConfigReference.keys(in: "monitoring.http_auth")),
              let n = required(f, "token_file", in: "monitoring.http_auth"), let v = string(n, key: "token_file") else { return nil }
        let resolved = Self.resolve(v, against: configDirectory)
        switch Self.firstLine(ofFile: resolved) {
        case .failure(let reason):
            error("cannot read 'token_file' '\(v)': \(reason) (its first line is the token the HTTP server asks for)", at: n.mark)
            return nil
        case .success(let line):
            let token = line.trimmingCharacters(in: .whitespaces)
            if token.isEmpty {
                error("the first line of 'token_file' '\(v)' is empty; write the token there (e.g. `openssl rand -hex 32 > \(v)`)", at: n.mark)
                return nil
            }
            if token.count < Self.recommendedHTTPTokenLength {
                warn("the token in 'token_file' '\(v)' is shorter than \(Self.recommendedHTTPTokenLength) characters; a long random one (`openssl rand -hex 32`) cannot be guessed", at: n.mark)
            }
            return .token(file: resolved, token: HTTPToken(token))
        }
    }
}

extension Optional where Wrapped == HTTPAuthConfig {
    /// How the HTTP server is guarded, for log lines: the token's file, never the token.
    var accessText: String {
        switch self {
        case .token(let file, _)?: "access: the token of \(file)"
        case .open?: "access: open to everyone (http_auth: none)"
        case nil: "access: open (loopback)"
        }
    }
}
