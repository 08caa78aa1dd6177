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
        // read(2), write(2) and close(2) with per-thread buffers for the network thread's MQTT socket (see its header).
        .target(name: "CSocketBuffers"),
        .systemLibrary(name: "CMalloc"),
        .target(
            name: "PushBridge",
            dependencies: ["CMosquitto", "CYaml", "CMicroHTTPD", "CSQLite", "CSocketBuffers", "CMalloc"]
        ),
        .executableTarget(
            name: "pushbridge",
            dependencies: ["PushBridge"]
        ),
        .executableTarget(
            name: "pushbridge-example-extension",
            dependencies: ["PushBridge"],
            path: "examples/swift-extension",
            exclude: ["README.md"]
        ),
        .testTarget(
            name: "PushBridgeTests",
            dependencies: ["PushBridge", "CSocketBuffers"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
