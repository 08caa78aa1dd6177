import Foundation
import PackagePlugin

/// Embeds the files of `dashboard/` in the target that uses it (PushBridge): one build command
/// running the package's `dashboard-assets` tool on the folder, whose output
/// `DashboardAssets+files.swift` in the plugin's work directory SwiftPM compiles into the target.
/// Its inputs are the folder itself (so a file added or removed reruns it: the tool fails for a
/// file it has no member for, or a member whose file is gone) and every file in it (so an edit
/// reruns it); SwiftPM also reruns it when the tool changed.
@main
struct DashboardAssetsPlugin: BuildToolPlugin {
    /// The command that writes the Swift for the files of `dashboard/`.
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let tool = try context.tool(named: "dashboard-assets")
        let folder = context.package.directoryURL.appending(path: "dashboard", directoryHint: .isDirectory)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path(percentEncoded: false))
            .filter { !$0.hasPrefix(".") }
            .sorted()
            .map { folder.appending(path: $0, directoryHint: .notDirectory) }
        let output = context.pluginWorkDirectoryURL.appending(path: "DashboardAssets+files.swift",
                                                              directoryHint: .notDirectory)
        return [.buildCommand(displayName: "Embedding the files of dashboard",
                              executable: tool.url,
                              arguments: [folder.path(percentEncoded: false), output.path(percentEncoded: false)],
                              inputFiles: [folder] + files,
                              outputFiles: [output])]
    }
}
