#pragma once
#include <cstdlib>
#include <string>

// The repository root: $HONE_SOURCE_DIR when set (the tests run from a copy of the tree on the
// GPU machine), else the folder the tests were built from.
inline std::string source_dir() {
    const char* env = std::getenv("HONE_SOURCE_DIR");
    return env && *env ? env : HONE_SOURCE_DIR;
}
