import Foundation

/// A `webpush:` output's settings (the output's `name`, `routes`, … are the outputs list's).
package struct WebPushConfig: Sendable, Equatable {
    /// The VAPID key's PEM file (made at first start when missing), absolute.
    var vapidKeyFile: String
    /// `mailto:…` or an `https:` URL: who runs this application server (the JWT's `sub`).
    var subject: String
    /// The file the subscribe token was read from, absolute (shown by `check`; the token never is).
    var subscribeTokenFile: String
    /// The token a page must send (`Authorization: Bearer …`) to subscribe. Secret: never printed.
    var subscribeToken: String

    /// The `check` line: files and subject, never the token.
    var summary: String {
        "webpush: vapid_key_file=\(vapidKeyFile) subject=\(subject) subscribe_token_file=\(subscribeTokenFile)"
    }
}

extension ConfigReader {
    /// The shortest subscribe token accepted (it is all that guards the subscription API).
    static let minimumTokenLength = 16

    /// Reads `webpush: {vapid_key_file, subject, subscribe_token_file}`; every problem is reported
    /// at its position, `nil` when any was found. Relative files are relative to the config file.
    func readWebPush(_ node: YAMLNode) -> WebPushConfig? {
        guard let f = fields(node, key: "webpush", context: "webpush",
                             known: ConfigReference.keys(in: "outputs[].webpush")) else { return nil }
        let directory = configDirectory
        var keyFile: String?, subject: String?, tokenFile: String?, token: String?
        if let n = required(f, "vapid_key_file", in: "webpush"), let v = string(n, key: "vapid_key_file") {
            if v.isEmpty { error("'vapid_key_file' must not be empty", at: n.mark) } else {
                keyFile = Self.resolve(v, against: directory)
            }
        }
        if let n = required(f, "subject", in: "webpush"), let v = string(n, key: "subject") {
            if let problem = Self.subjectProblem(v) { error("invalid 'subject' \(show(n)): \(problem)", at: n.mark) } else { subject = v }
        }
        if let n = required(f, "subscribe_token_file", in: "webpush"), let v = string(n, key: "subscribe_token_file") {
            let resolved = Self.resolve(v, against: directory)
            switch Self.firstLine(ofFile: resolved) {
            case .failure(let reason): error("cannot read 'subscribe_token_file' '\(v)': \(reason)", at: n.mark)
            case .success(let line):
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.count < Self.minimumTokenLength {
                    error("the token in 'subscribe_token_file' '\(v)' must be at least \(Self.minimumTokenLength) characters on its first line (e.g. `openssl rand -hex 16`)", at: n.mark)
                } else {
                    tokenFile = resolved
                    token = trimmed
                }
            }
        }
        guard let keyFile, let subject, let tokenFile, let token else { return nil }
        return WebPushConfig(vapidKeyFile: keyFile, subject: subject, subscribeTokenFile: tokenFile, subscribeToken: token)
    }

    /// Why `subject` is not a VAPID subject (RFC 8292 section 2.1: a `mailto:` or `https:` URI), or `nil`.
    static func subjectProblem(_ subject: String) -> String? {
        if subject.contains(where: { $0.isWhitespace }) { return "it must not contain spaces" }
        let lower = subject.lowercased()
        if lower.hasPrefix("mailto:") {
            let address = subject.dropFirst("mailto:".count)
            guard let at = address.firstIndex(of: "@"), at != address.startIndex, address.index(after: at) != address.endIndex else {
                return "a mailto: subject needs an address such as mailto:me@example.com"
            }
            return nil
        }
        if lower.hasPrefix("https://") {
            guard let c = URLComponents(string: subject), let host = c.host, !host.isEmpty else {
                return "an https: subject needs a host, such as https://example.com"
            }
            return nil
        }
        return "it must be a mailto: address or an https: URL (push services contact the operator there)"
    }

    /// The directory of the config file ("" for a bare file name).
    var configDirectory: String {
        path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : ""
    }
}
