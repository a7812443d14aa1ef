#ifndef TOKENVAULT_CLIBFUZZER_SHIM_H
#define TOKENVAULT_CLIBFUZZER_SHIM_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver, for a program that keeps its own `main` (LLVM's "Using libFuzzer as a
// library"). Defined by the runtime that `-sanitize=fuzzer` links; nothing links it otherwise, so
// only code built with `-DFUZZING` may refer to it.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));

#endif
