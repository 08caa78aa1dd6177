// dashboard-assets: the build tool of Plugins/DashboardAssetsPlugin, whose one build command
// runs it whenever a file of dashboard/ (or the folder's list of files, or this tool) changed:
//
//   dashboard-assets DASHBOARD_FOLDER OUTPUT.swift
//
// OUTPUT.swift (generated code in the plugin's work directory, compiled into the PushBridge
// module, never in the tree) declares a member of `DashboardAssets`
// (Sources/PushBridge/Monitoring/DashboardAssets.swift) for each file: a text file as one raw
// string literal holding it exactly, a PNG as a base64 literal decoded into bytes once, when
// first used. So the binary serves the page with no resource bundle, and dashboard/ is the only
// copy of it.
//
// A whole file is one literal, all in one output: the output (about 60 kB) compiles in well
// under a second (the 250-line pieces of the old embedding script were for the rule that no file
// in Sources is over 300 lines, which this output, outside Sources, is not subject to).
//
// Fails (exit 1, naming the file) for a file it has no member for or a member whose file is
// missing (hidden files, such as an editor's swap files, are skipped), and for a text file that
// is not UTF-8, holds a carriage return (a Swift literal would turn CR LF into LF) or the
// literal's delimiter. The output is rewritten only when it changes. Foundation only.
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

/// The declaration of the member for the file `name` whose contents are `data`, indented for
/// the body of the extension.
func declaration(name: String, data: Data) -> [String] {
    guard let member = members[name] else {
        fail("dashboard/\(name): no DashboardAssets member for this file; add one to the table in "
             + "Sources/dashboard-assets/main.swift (and the list in DashboardAssetsTests)")
    }
    if member.binary {
        return [
            "    /// dashboard/\(name), decoded once when first used.",
            "    static let \(member.name) = [UInt8](Data(base64Encoded: \"\(data.base64EncodedString())\")!)",
        ]
    }
    guard let text = String(data: data, encoding: .utf8) else { fail("dashboard/\(name) is not UTF-8 text") }
    if text.contains("\r") { fail("dashboard/\(name) has a carriage return (a Swift literal turns CR LF into LF)") }
    if text.contains("\"\"\"" + pounds) || text.contains("\\" + pounds) {
        fail("dashboard/\(name) contains the raw string delimiter \(pounds)")
    }
    // The newline before the closing delimiter is not part of the literal: the text is exact.
    return ["    /// dashboard/\(name)", "    static let \(member.name) = \(pounds)\"\"\"", text, "\"\"\"\(pounds)"]
}

/// The Swift source embedding the files of the folder at `folder`.
func swiftSource(folder: URL) -> String {
    let names: [String]
    do {
        names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }.sorted()
    } catch {
        fail("cannot list \(folder.path): \(error.localizedDescription)")
    }
    for name in members.keys.sorted() where !names.contains(name) {
        fail("dashboard/\(name) is missing (DashboardAssets.\(members[name]!.name) is made from it)")
    }
    var lines = [
        "// Generated at build time by dashboard-assets (Plugins/DashboardAssetsPlugin) from the files",
        "// of dashboard/: edit those, the next build embeds them.",
        "",
        "import Foundation",
        "",
        "extension DashboardAssets {",
    ]
    for name in names {
        let data: Data
        do { data = try Data(contentsOf: folder.appendingPathComponent(name)) } catch {
            fail("cannot read dashboard/\(name): \(error.localizedDescription)")
        }
        lines += declaration(name: name, data: data)
    }
    lines.append("}")
    return lines.joined(separator: "\n") + "\n"
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else { fail("usage: dashboard-assets DASHBOARD_FOLDER OUTPUT.swift") }
let source = Data(swiftSource(folder: URL(fileURLWithPath: arguments[1], isDirectory: true)).utf8)
let output = URL(fileURLWithPath: arguments[2])
if (try? Data(contentsOf: output)) != source {
    do { try source.write(to: output, options: .atomic) } catch {
        fail("cannot write \(output.path): \(error.localizedDescription)")
    }
}
