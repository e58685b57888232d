// The tests' binaries lie in build/tests/, hone-worker in build/: where none lies beside the
// test binary (as in a carried copy) and $HONE_WORKER is unset, point it at the one built.
#pragma once
#include <stdlib.h>
#include <unistd.h>

#include "hone/error.hpp"
#include "process/worker_process.hpp"

inline void use_built_worker() {
    if (const char* env = ::getenv("HONE_WORKER"); env && *env) return;
    try {
        hone::worker_executable();
        return;
    } catch (const hone::env_error&) {
    }
    if (::access(HONE_WORKER_BINARY, X_OK) == 0) ::setenv("HONE_WORKER", HONE_WORKER_BINARY, 1);
}
