import Foundation

/// The time window of a `quiet_hours` filter: minutes after local midnight.
///
/// `from < to` is a window inside one day (`[from, to)`); `from > to` crosses midnight
/// (`22:00`–`07:00` covers 22:00 to 06:59); `from == to` is an empty window, never quiet.
struct QuietHours: Sendable, Equatable {
    var fromMinute: Int
    var toMinute: Int

    /// `true` when `minute` (0…1439) lies in the window.
    func contains(minute: Int) -> Bool {
        if fromMinute < toMinute { return minute >= fromMinute && minute < toMinute }
        if fromMinute > toMinute { return minute >= fromMinute || minute < toMinute }
        return false
    }

    /// `true` when the UNIX time `seconds` lies in the window in `timeZone`.
    func contains(unixSeconds seconds: Double, in timeZone: TimeZone) -> Bool {
        contains(minute: Self.minuteOfDay(unixSeconds: seconds, in: timeZone))
    }

    /// Minutes after local midnight of the UNIX time `seconds` in `timeZone`.
    static func minuteOfDay(unixSeconds seconds: Double, in timeZone: TimeZone) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: Date(timeIntervalSince1970: seconds))
        return (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
    }
}
