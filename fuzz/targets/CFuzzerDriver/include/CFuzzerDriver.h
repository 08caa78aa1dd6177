#ifndef PUSHBRIDGE_FUZZER_DRIVER_H
#define PUSHBRIDGE_FUZZER_DRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (libclang_rt.fuzzer, linked by `-sanitize=fuzzer`): parses libFuzzer's
/// command line from argc/argv and calls `callback` once per input. A fuzz target's
/// main.swift calls it, because SwiftPM gives every executable a `main` of its own (so the
/// `main` inside libFuzzer is never used).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

/// Runs libFuzzer over `callback` with the process's arguments; returns its exit status.
static inline int pb_fuzz_main(int argc, char **argv, int (*callback)(const uint8_t *data, size_t size)) {
    return LLVMFuzzerRunDriver(&argc, &argv, callback);
}

#endif
