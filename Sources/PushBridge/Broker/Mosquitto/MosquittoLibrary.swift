import CMosquitto

/// The linked libmosquitto's version, e.g. `2.0.11`.
func mosquittoLibraryVersion() -> String {
    var major: Int32 = 0, minor: Int32 = 0, revision: Int32 = 0
    _ = mosquitto_lib_version(&major, &minor, &revision)
    return "\(major).\(minor).\(revision)"
}
