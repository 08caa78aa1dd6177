// The package's sanitizer builds compile this tool like every target, and it then runs during
// the build: `make sanitize` (sanitize/run.sh, --sanitize=address|thread) and fuzz/run.sh
// (-sanitize=fuzzer,address). Two symbols keep those builds working; without a sanitizer
// runtime nothing refers to them.

/// LeakSanitizer asks this at exit. Under AddressSanitizer the bytes `Data(contentsOf:)` read
/// are held through a tagged pointer LeakSanitizer cannot follow (sanitize/leak.supp's
/// `readBytesFromFile`), so each run would report a leak and exit 1, failing the build; the tool
/// lives for milliseconds, so its check is off.
@_cdecl("__lsan_is_turned_off")
func leakCheckIsOff() -> Int32 { 1 }

/// `-sanitize=fuzzer` links libFuzzer, whose `main` (unused: SwiftPM points the executable's
/// entry at main.swift, as for the fuzz targets) refers to this; without it the link fails.
/// Never called.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 { 0 }
