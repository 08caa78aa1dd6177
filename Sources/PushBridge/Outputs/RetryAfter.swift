import CCurl
import Foundation

/// `Retry-After` (RFC 9110 10.2.3) and the backoff used when a service gives none.
enum RetryAfter {
    /// The longest wait honoured: a later date or larger number is cut to this.
    static let longest: Double = 3600

    /// Seconds to wait from `now` (seconds since 1970): `120`, or an HTTP-date
    /// (`Sun, 06 Nov 1994 08:49:37 GMT`; the obsolete RFC 850 and asctime forms too, as
    /// `curl_getdate` reads them).
    /// `nil` when the value is neither.
    static func seconds(_ value: String, now: Double) -> Double? {
        let v = value.trimmingCharacters(in: .whitespaces)
        if !v.isEmpty, v.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            return min(Double(v) ?? longest, longest)
        }
        // libcurl's date parser (the one it uses for cookies and If-Modified-Since).
        let at = Curl.getdate(v)
        guard at >= 0, v.contains(where: { $0.isLetter }) else { return nil }
        return min(max(0, Double(at) - now), longest)
    }

    /// The wait before attempt `attempt + 1` after `attempt` failures: 1 s doubling to 5 min,
    /// with up to a fifth of random spread so retries of many items do not march together.
    static func backoff(attempt: Int, random: Double = Double.random(in: 0..<1)) -> Double {
        let base = min(300, pow(2, Double(min(max(attempt - 1, 0), 20))))
        return base * (1 + 0.2 * random)
    }
}
