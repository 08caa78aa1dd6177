// dashboard-assets: the build tool of Plugins/DashboardAssetsPlugin, which gives SwiftPM one
// command per file of dashboard/, run by a build that finds that file (or this tool) changed:
//
//   dashboard-assets dashboard/NAME OUTPUT.swift
//
// and OUTPUT.swift (generated code in the plugin's work directory, compiled into the PushBridge
// module, never in the tree) declares that file's member of `DashboardAssets`
// (Sources/PushBridge/Monitoring/DashboardAssets.swift): a text file as one raw string literal
// holding it exactly, a PNG as a base64 literal decoded into bytes once, when first used. So the
// binary serves the page with no resource bundle, and dashboard/ is the only copy of it.
//
// One output per file: editing a page rewrites and recompiles that file's Swift only. A whole
// file is one literal: a literal of thousands of lines type-checks in a fraction of a second
// (the 250-line pieces of the old embedding script were for the rule that no file in Sources is
// over 300 lines, which this output, outside Sources, is not subject to).
//
// Fails (exit 1, naming the file) for a file it has no member for, a text file that is not
// UTF-8, holds a carriage return (a Swift literal would turn CR LF into LF) or the literal's
// delimiter. Foundation only.
import Foundation

/// The `DashboardAssets` member each file of dashboard/ becomes (the names the code and the
/// tests use), and whether the file is bytes rather than text.
let members: [String: (name: String, binary: Bool)] = [
    "index.html": ("indexHTML", false),
    "dashboard.css": ("dashboardCSS", false),
    "dashboard.js": ("dashboardJS", false),
    "subscribe.html": ("subscribeHTML", false),
    "sw.js": ("serviceWorkerJS", false),
    "manifest.webmanifest": ("manifest", false),
    "icon.svg": ("iconSVG", false),
    "icon-192.png": ("icon192PNG", true),
    "icon-512.png": ("icon512PNG", true),
]

/// The raw string delimiter's pounds: `##"""` … `"""##`.
let pounds = "##"

/// Prints `message` to standard error and exits 1.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("dashboard-assets: \(message)\n".utf8))
    exit(1)
}

/// The Swift source declaring the member for the file `name` whose contents are `data`.
func swiftSource(name: String, data: Data) -> String {
    guard let member = members[name] else {
        fail("dashboard/\(name): no DashboardAssets member for this file; add one to the table in "
             + "Sources/dashboard-assets/main.swift (and the list in DashboardAssetsTests)")
    }
    var lines = [
        "// Generated at build time by dashboard-assets (Plugins/DashboardAssetsPlugin) from",
        "// dashboard/\(name): edit that file, the next build embeds it.",
        "",
    ]
    if member.binary {
        lines += [
            "import Foundation",
            "",
            "extension DashboardAssets {",
            "    /// dashboard/\(name), decoded once when first used.",
            "    static let \(member.name) = [UInt8](Data(base64Encoded: \"\(data.base64EncodedString())\")!)",
            "}",
        ]
    } else {
        guard let text = String(data: data, encoding: .utf8) else { fail("dashboard/\(name) is not UTF-8 text") }
        if text.contains("\r") { fail("dashboard/\(name) has a carriage return (a Swift literal turns CR LF into LF)") }
        if text.contains("\"\"\"" + pounds) || text.contains("\\" + pounds) {
            fail("dashboard/\(name) contains the raw string delimiter \(pounds)")
        }
        // The newline before the closing delimiter is not part of the literal: the text is exact.
        lines += [
            "extension DashboardAssets {",
            "    /// dashboard/\(name)",
            "    static let \(member.name) = \(pounds)\"\"\"",
            text,
            "\"\"\"\(pounds)",
            "}",
        ]
    }
    return lines.joined(separator: "\n") + "\n"
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else { fail("usage: dashboard-assets dashboard/NAME OUTPUT.swift") }
let input = URL(fileURLWithPath: arguments[1])
let data: Data
do { data = try Data(contentsOf: input) } catch { fail("cannot read \(input.path): \(error.localizedDescription)") }
let source = swiftSource(name: input.lastPathComponent, data: data)
do {
    try Data(source.utf8).write(to: URL(fileURLWithPath: arguments[2]), options: .atomic)
} catch {
    fail("cannot write \(arguments[2]): \(error.localizedDescription)")
}
