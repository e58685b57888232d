// The CUDA toolkit's include folders for NVRTC. NVRTC finds only its own built-in headers; a
// kernel that includes cuda_fp16.h, cuda_bf16.h or CCCL (cub, thrust, cuda/std) needs the
// toolkit's folder, which the user should not have to write into a config that then holds one
// machine's path. They are added after the kernel's own -I folders, so that a kernel's own copy
// of a header wins.
#include "compile/toolkit_include.hpp"

#include <dlfcn.h>
#include <nvrtc.h>

#include <cstdlib>
#include <filesystem>

namespace hone {
namespace {

namespace fs = std::filesystem;

// The folder of the NVRTC library this process runs: lib64/ or lib/ beside include/, or
// targets/<arch>/lib beside targets/<arch>/include.
std::string nvrtc_library_folder() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) == 0 || !info.dli_fname) return {};
    std::error_code ec;
    const fs::path lib = fs::weakly_canonical(info.dli_fname, ec);
    return ec ? std::string{} : lib.parent_path().string();
}

}  // namespace

std::vector<std::string> toolkit_include_candidates() {
    std::vector<std::string> out;
    if (const char* own = std::getenv("HONE_CUDA_INCLUDE"); own && *own) out.emplace_back(own);
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* v = std::getenv(var); v && *v) out.push_back(std::string(v) + "/include");
    if (const std::string lib = nvrtc_library_folder(); !lib.empty())
        out.push_back(lib + "/../include");
    out.emplace_back("/usr/local/cuda/include");
    out.emplace_back("/usr/include");  // Debian's nvidia-cuda-toolkit
    return out;
}

std::vector<std::string> find_toolkit_includes(const std::vector<std::string>& candidates) {
    for (const auto& dir : candidates) {
        std::error_code ec;
        if (!fs::is_regular_file(fs::path(dir) / "cuda_fp16.h", ec)) continue;
        const fs::path root = fs::weakly_canonical(dir, ec);
        const std::string folder = ec ? dir : root.string();
        std::vector<std::string> out{folder};
        // CUDA 13 keeps CCCL (cub/, thrust/, cuda/std/) in a folder of its own.
        if (fs::is_directory(fs::path(folder) / "cccl", ec)) out.push_back(folder + "/cccl");
        return out;
    }
    return {};
}

const std::vector<std::string>& toolkit_includes() {
    static const std::vector<std::string> dirs =
        find_toolkit_includes(toolkit_include_candidates());
    return dirs;
}

}  // namespace hone
