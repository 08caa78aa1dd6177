// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "pushbridge",
    products: [
        .library(name: "PushBridge", targets: ["PushBridge"]),
        .executable(name: "pushbridge", targets: ["pushbridge"]),
    ],
    targets: [
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        .systemLibrary(
            name: "CYaml",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        .systemLibrary(
            // Loaded with dlopen when the metrics endpoint starts (see shim.h): not linked.
            name: "CMicroHTTPD"
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // read(2), write(2), close(2) and socketpair(2) with per-thread buffers for the network
        // thread's MQTT socket (see its header). Programs only: the executable lends them to the
        // library through SocketBufferHooks; the library never depends on this target.
        .target(name: "CSocketBuffers"),
        .systemLibrary(name: "CMalloc"),
        // OpenSSL 3: Web Push's P-256 keys, ECDH, ES256, HKDF and AES-128-GCM (libcrypto), and
        // the TLS client of `pushbridge health` for an https endpoint (libssl).
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // The outputs' HTTP client (Sources/PushBridge/Outputs only): libcurl's header (Debian's
        // libcurl4-openssl-dev); the library is loaded with dlopen when an output starts.
        .systemLibrary(name: "CCurl"),
        // The Redis (and Valkey) client of shared state (Sources/PushBridge/Redis only): hiredis's
        // header (Debian's libhiredis-dev); the library is loaded with dlopen at the first connection.
        .systemLibrary(name: "CHiredis"),
        // The files of dashboard/ are compiled in as Swift at build time: DashboardAssetsPlugin
        // runs dashboard-assets (Foundation only) on each of them; nothing of it is in the tree.
        .target(
            name: "PushBridge",
            dependencies: ["CMosquitto", "CYaml", "CMicroHTTPD", "CSQLite", "CMalloc", "CCurl", "COpenSSL", "CHiredis"],
            plugins: ["DashboardAssetsPlugin"]
        ),
        .executableTarget(name: "dashboard-assets"),
        .plugin(
            name: "DashboardAssetsPlugin",
            capability: .buildTool(),
            dependencies: ["dashboard-assets"]
        ),
        // The command line's code that is not the bridge: the `monitor` session and table, the
        // event-stream client, the stats parser, `try`'s runner and samples.
        .target(
            name: "PushBridgeCLI",
            dependencies: ["PushBridge"]
        ),
        .executableTarget(
            name: "pushbridge",
            dependencies: ["PushBridge", "PushBridgeCLI", "CSocketBuffers", "COpenSSL", "CMalloc"]
        ),
        .executableTarget(
            name: "pushbridge-example-extension",
            dependencies: ["PushBridge"],
            path: "examples/swift-extension",
            exclude: ["README.md"]
        ),
        .testTarget(
            name: "PushBridgeTests",
            dependencies: ["PushBridge", "PushBridgeCLI", "CSocketBuffers"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The libFuzzer targets (fuzz/README.md): one executable per folder fuzz/targets/fuzz_*/, each
// depending on the whole `PushBridge` library, so a new source file can never break them.
// They are in the manifest only when PUSHBRIDGE_FUZZ holds their names (fuzz/run.sh lists the
// folders into it and builds them with `-sanitize=fuzzer,address` into .build/fuzz/build):
// `swift build` and `swift test` never see them. (The names come in through the environment,
// which is part of SwiftPM's manifest cache key; a folder listing here would be cached.)
if let names = Context.environment["PUSHBRIDGE_FUZZ"] {
    package.targets.append(.target(name: "CFuzzerDriver", path: "fuzz/targets/CFuzzerDriver"))
    for name in names.split(separator: " ").map(String.init) where name.hasPrefix("fuzz_") {
        package.targets.append(.executableTarget(name: name, dependencies: ["PushBridge", "PushBridgeCLI", "CFuzzerDriver"],
                                                 path: "fuzz/targets/\(name)"))
    }
}
