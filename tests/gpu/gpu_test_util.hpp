#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "../run_command.hpp"
#include "hone/spec.hpp"
#include "hone/status.hpp"

// The repository root: $HONE_SOURCE_DIR when set (the tests run from a copy of the tree on the
// GPU machine), else the folder the tests were built from.
inline std::string source_dir() {
    const char* env = std::getenv("HONE_SOURCE_DIR");
    return env && *env ? env : HONE_SOURCE_DIR;
}

struct run_result {
    int rc = -1;
    std::string out;
};

// Runs a shell command, stdout and stderr together; rc -1 when it did not exit.
inline run_result shell(const std::string& cmd) {
    const command_result c = run_command(cmd + " 2>&1");
    return {c.rc, c.output};
}

// tests/gpu/vector_add_small.yaml, writing to `db` (removed first).
inline hone::spec small_spec(const char* db) {
    hone::spec s = hone::load_spec(source_dir() + "/tests/gpu/vector_add_small.yaml");
    s.output = db;
    std::remove(db);
    return s;
}

// A binary of this build, or the one on PATH (the GPU machine carries them in .carry/).
inline std::string binary(const char* name, const char* built) {
    return std::filesystem::exists(built) ? built : name;
}

// MODE of kernels_src/faults.cu -> the status it ends with, as tests/gpu/faults_all.yaml and
// configs/faults.yaml document.
inline const std::map<int64_t, hone::status>& fault_statuses() {
    using hone::status;
    static const std::map<int64_t, status> m = {{0, status::ok},
                                                {1, status::runtime_fault},
                                                {2, status::runtime_fault},
                                                {3, status::runtime_fault},
                                                {4, status::timeout},
                                                {5, status::runtime_fault},
                                                {6, status::wrong_result},
                                                {7, status::wrong_result},
                                                {8, status::wrong_result},
                                                {9, status::device_limits},
                                                {10, status::device_limits},
                                                {99, status::compile_error}};
    return m;
}
