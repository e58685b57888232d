// Capture: the problem sizes (and optionally the input buffers) an application launches a
// kernel with, one small JSON file per (config, kernel, sizes), for `hone tune --captures DIR`.
//   HONE_CAPTURE=<glob>       kernels to capture: matched (fnmatch) against the kernel's name
//                             without template arguments ("vector_add"), or its full name
//   HONE_CAPTURE_DIR=<dir>    where (default ./hone-captures; created when absent)
//   HONE_CAPTURE_INPUTS=1     also copy the in and inout buffers (raw binary) before the launch
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace hone::runtime {

struct capture_settings {
    std::string pattern;  // "" = off
    std::string dir = "hone-captures";
    bool inputs = false;
};
// From the environment, read once per process.
const capture_settings& capture_from_env();
bool capture_matches(const std::string& pattern, const std::string& kernel_name);

struct capture_input {
    std::string buffer;
    std::string type;  // elem_name()
    uint64_t count = 0;
    uint64_t bytes = 0;
    std::string file;  // relative to the capture's folder
};

struct capture_record {
    std::string config;  // absolute path of the config
    std::string kernel;  // the spec's kernel name
    std::vector<std::pair<std::string, int64_t>> problem;
    std::string device_name, arch, uuid;
    std::vector<capture_input> inputs;  // empty unless inputs are captured
    std::string path;                   // where it was read from (read_captures)
};

// "<config stem>.<kernel base name>.N=1024,M=8" (characters outside [A-Za-z0-9_.=,-] as '_').
std::string capture_stem(const capture_record& r);
// Writes <dir>/<stem>.json and, for each of rec.inputs, <dir>/<stem>.<buffer>.bin filled by
// read(i, dst) (rec.inputs[i].bytes bytes). Files are written to a temporary name and renamed.
// Throws env_error naming the folder when it cannot be created or written.
void write_capture(const std::string& dir, capture_record rec,
                   const std::function<void(std::size_t, void*)>& read);
// Every capture file (*.json of format hone-capture) in `dir`; input_error naming the file
// (line:column for JSON syntax) for one that is damaged, of another version, or whose inputs
// are missing.
std::vector<capture_record> read_captures(const std::string& dir);

}  // namespace hone::runtime
