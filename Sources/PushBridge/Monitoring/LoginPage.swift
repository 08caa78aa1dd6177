/// The sign-in page of the HTTP server under `monitoring.http_auth`: what `GET /` answers
/// (401) without a session or token, and the form `POST /login` reads.
///
/// The page is plain HTML with nothing of the dashboard (no script, no data): one password
/// field `token` posted to `/login`.
enum LoginPage {
    /// Nothing from anywhere; inline style; the form may post only to this server.
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    /// The page; with `failed`, it says that the token given was not right.
    static func html(failed: Bool) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>pushbridge: sign in</title>
        <style>
        body{font:16px/1.4 system-ui,sans-serif;max-width:22rem;margin:12vh auto;padding:0 1rem;color:#222}
        input,button{font:inherit;width:100%;box-sizing:border-box;padding:.5rem;margin:.3rem 0}
        .error{color:#b00020}
        </style>
        </head>
        <body>
        <h1>pushbridge</h1>
        \(failed ? "<p class=\"error\">That token is not right.</p>\n" : "")<form method=post action=/login>
        <label for="token">Access token</label>
        <input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
        <button type="submit">Sign in</button>
        </form>
        </body>
        </html>

        """
    }

    /// The page as a 401 answer asking for a Bearer token.
    static func response(failed: Bool) -> HTTPResponse {
        HTTPResponse(status: 401, body: html(failed: failed), contentType: "text/html; charset=utf-8",
                     headers: [("WWW-Authenticate", HTTPAccess.challenge), ("Content-Security-Policy", contentSecurityPolicy),
                               ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff")])
    }

    /// The value of field `name` of an `application/x-www-form-urlencoded` body (`+` is a
    /// space, `%XX` a byte), or `nil` when it is missing or not UTF-8 once decoded.
    static func field(_ name: String, in body: [UInt8]) -> String? {
        for pair in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = decode(parts[0]), key == name else { continue }
            return parts.count == 2 ? decode(parts[1]) : ""
        }
        return nil
    }

    /// One decoded component, or `nil` for a broken `%` escape or bytes that are not UTF-8.
    private static func decode(_ bytes: ArraySlice<UInt8>) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            switch bytes[i] {
            case UInt8(ascii: "+"):
                out.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard i + 2 < bytes.endIndex, let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2]) else { return nil }
                out.append(high << 4 | low)
                i += 2
            default:
                out.append(bytes[i])
            }
            i += 1
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
