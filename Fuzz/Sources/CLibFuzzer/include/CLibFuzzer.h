// libFuzzer's entry for programs that have their own main (https://llvm.org/docs/LibFuzzer.html#using-libfuzzer-as-a-library).
// SwiftPM links every executable with `main` aliased to the module's own entry point, so libFuzzer's `main` never
// runs: each fuzz target's main.swift calls this instead (through `Fuzz.run`).
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
