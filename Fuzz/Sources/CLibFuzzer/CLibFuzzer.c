// Only the declaration in include/CLibFuzzer.h; libFuzzer itself comes with -sanitize=fuzzer.
