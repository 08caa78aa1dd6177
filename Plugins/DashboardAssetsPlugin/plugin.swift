import Foundation
import PackagePlugin

/// Embeds the files of `dashboard/` in the target that uses it (PushBridge): one build command
/// per file, running the package's `dashboard-assets` tool, whose input is the file and whose
/// output is `DashboardAssets+<file name>.swift` in the plugin's work directory. SwiftPM compiles
/// the outputs into the target and reruns a command when its file changed (or the tool did).
/// Hidden files (an editor's swap files) are left out; any other file the tool has no member
/// for fails the build with its name.
@main
struct DashboardAssetsPlugin: BuildToolPlugin {
    /// The commands that write the Swift for every file of `dashboard/`.
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let tool = try context.tool(named: "dashboard-assets")
        let folder = context.package.directoryURL.appending(path: "dashboard", directoryHint: .isDirectory)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path(percentEncoded: false))
            .filter { !$0.hasPrefix(".") }
            .sorted()
        return names.map { name in
            let input = folder.appending(path: name, directoryHint: .notDirectory)
            let output = context.pluginWorkDirectoryURL.appending(path: "DashboardAssets+\(name).swift",
                                                                  directoryHint: .notDirectory)
            return .buildCommand(displayName: "Embedding dashboard/\(name)",
                                 executable: tool.url,
                                 arguments: [input.path(percentEncoded: false), output.path(percentEncoded: false)],
                                 inputFiles: [input],
                                 outputFiles: [output])
        }
    }
}
