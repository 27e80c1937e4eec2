// The libFuzzer entry points, dispatching to the Swift target SEAMCHECK_FUZZ_TARGET names
// (parser, asset-list, uri, lint).
//
// `-sanitize=fuzzer` links libFuzzer's runtime whole, its main included: that main wins over
// the weak one below, reads the libFuzzer flags and calls LLVMFuzzerTestOneInput. The weak main
// is for a link without libFuzzer's main (LLVMFuzzerRunDriver from fuzzer_no_main).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*fuzz_callback)(const uint8_t *data, size_t size);
int LLVMFuzzerRunDriver(int *argc, char ***argv, fuzz_callback callback);

// Defined in Swift (FuzzTargets) with @_cdecl.
int seamcheck_fuzz_parser(const uint8_t *data, size_t size);
int seamcheck_fuzz_asset_list(const uint8_t *data, size_t size);
int seamcheck_fuzz_uri(const uint8_t *data, size_t size);
int seamcheck_fuzz_lint(const uint8_t *data, size_t size);

static fuzz_callback chosen_target(void) {
    static fuzz_callback callback = NULL;
    if (callback) return callback;
    const char *name = getenv("SEAMCHECK_FUZZ_TARGET");
    if (name && strcmp(name, "parser") == 0) callback = seamcheck_fuzz_parser;
    if (name && strcmp(name, "asset-list") == 0) callback = seamcheck_fuzz_asset_list;
    if (name && strcmp(name, "uri") == 0) callback = seamcheck_fuzz_uri;
    if (name && strcmp(name, "lint") == 0) callback = seamcheck_fuzz_lint;
    if (!callback) {
        fprintf(stderr, "seamcheck-fuzz: set SEAMCHECK_FUZZ_TARGET to parser, asset-list, uri or lint\n");
        exit(2);
    }
    return callback;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    chosen_target();  // an unknown target stops before fuzzing starts
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return chosen_target()(data, size); }

__attribute__((weak)) int main(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}
