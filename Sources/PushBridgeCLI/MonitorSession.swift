import PushBridge
/// Frames for the live `pushbridge monitor` screen, redrawn in place with ANSI sequences.
///
/// Each frame moves the cursor home, writes every line followed by "clear to end of
/// line", then clears the rest of the screen: no alternate screen, so it works over
/// ssh and inside tmux, and the last frame stays visible after exit. The session keeps
/// the previous snapshot so `RATE/S` is per second between frames.
package struct MonitorSession: Sendable {
    /// Control Sequence Introducer (ESC [).
    private static let csi = "\u{1B}["
    /// Clears the screen and hides the cursor; write once before the first frame.
    package static let enter = csi + "2J" + csi + "?25l"
    /// Shows the cursor again; write once on exit.
    package static let leave = csi + "?25h\n"

    /// The snapshot the previous frame showed.
    package private(set) var previous: StatsSnapshot?

    /// A session with no frame drawn yet.
    package init() {}

    /// The next frame for `snapshot`, cut to `width` columns and at most `height` lines.
    package mutating func frame(for snapshot: StatsSnapshot, width: Int, height: Int = .max, now: Double) -> String {
        var lines = MonitorTable.lines(current: snapshot, previous: previous, width: width, now: now)
        if lines.count > height { lines = Array(lines.prefix(max(0, height))) }
        previous = snapshot
        return Self.frame(lines)
    }

    /// Home, each line then erase-to-end-of-line, then erase below.
    package static func frame(_ lines: [String]) -> String {
        var out = csi + "H"
        for (i, line) in lines.enumerated() {
            out += line + csi + "K"
            if i < lines.count - 1 { out += "\r\n" }
        }
        return out + csi + "J"
    }
}
