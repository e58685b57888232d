// One NVRTC compile, straight to CUBIN: loading a CUBIN takes ~0.04 ms where JIT-compiling PTX
// in the driver takes ~119 ms (../shared/FACTS.md).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <type_traits>
#include <vector>

#include "compile/compile.hpp"
#include "compile/includes.hpp"
#include "compile/std_shims.hpp"
#include "compile/toolkit_include.hpp"

namespace hone {
namespace {

using clock_type = std::chrono::steady_clock;

struct program_deleter {
    void operator()(nvrtcProgram p) const { nvrtcDestroyProgram(&p); }
};
using program_ptr = std::unique_ptr<std::remove_pointer_t<nvrtcProgram>, program_deleter>;

// NVRTC polls this during the compile; 1 cancels. Once past the deadline it stays past it,
// as NVRTC requires.
int past_deadline(void* payload, void*) {
    return clock_type::now() >= *static_cast<const clock_type::time_point*>(payload) ? 1 : 0;
}

std::string program_log(nvrtcProgram p) {
    std::size_t n = 0;
    if (nvrtcGetProgramLogSize(p, &n) != NVRTC_SUCCESS || n <= 1) return {};
    std::string log(n, '\0');
    nvrtcGetProgramLog(p, log.data());
    log.resize(n - 1);  // the terminating NUL
    // A log of ptxas's errors comes after an empty front-end part and its NUL.
    std::erase(log, '\0');
    return log;
}

std::vector<uint8_t> program_cubin(nvrtcProgram p) {
    std::size_t n = 0;
    if (nvrtcGetCUBINSize(p, &n) != NVRTC_SUCCESS || n == 0) return {};
    std::vector<uint8_t> cubin(n);
    if (nvrtcGetCUBIN(p, reinterpret_cast<char*>(cubin.data())) != NVRTC_SUCCESS) return {};
    return cubin;
}

void fail(compile_result& r, const char* step, nvrtcResult rc) {
    r.ok = false;
    r.timed_out = rc == NVRTC_ERROR_CANCELLED;
    if (!r.log.empty() && r.log.back() != '\n') r.log += '\n';
    r.log += fmt::format("{}: {}", step, nvrtcGetErrorString(rc));
}

bool nvrtc_caches() {
    static const bool caches = [] {
        int major = 0, minor = 0;
        nvrtcVersion(&major, &minor);
        return major > 12 || (major == 12 && minor >= 9);
    }();
    return caches;
}

// Everything after creating the program; fills r, never throws for a failed compile.
void run_compile(nvrtcProgram p, const compile_request& req, double timeout_s, compile_result& r) {
    const bool named = !req.name_expression.empty();
    nvrtcResult rc = named ? nvrtcAddNameExpression(p, req.name_expression.c_str()) : NVRTC_SUCCESS;
    if (rc != NVRTC_SUCCESS) return fail(r, "nvrtcAddNameExpression", rc);
    const clock_type::time_point deadline =
        clock_type::now() +
        std::chrono::duration_cast<clock_type::duration>(std::chrono::duration<double>(timeout_s));
    if (timeout_s > 0) {
        rc = nvrtcSetFlowCallback(p, past_deadline, const_cast<clock_type::time_point*>(&deadline));
        if (rc != NVRTC_SUCCESS) return fail(r, "nvrtcSetFlowCallback", rc);
    }
    std::vector<const char*> opts;
    for (const auto& o : req.options) opts.push_back(o.c_str());
    // After the request's own -I folders: the toolkit's, found where this process compiles.
    std::vector<std::string> toolkit;
    for (const auto& dir : toolkit_includes()) toolkit.push_back("-I" + dir);
    for (const auto& o : toolkit) opts.push_back(o.c_str());
    // NVRTC 12.9+ keeps its own cache in the driver's compute cache. A hit there skips ptxas, so
    // the log loses the resource report (registers, spills), and NVRTC initialises the driver in
    // the compiling process. hone caches compiled kernels itself.
    if (nvrtc_caches()) opts.push_back("--no-cache");
    rc = nvrtcCompileProgram(p, static_cast<int>(opts.size()), opts.data());
    r.log = program_log(p);
    if (rc != NVRTC_SUCCESS) return fail(r, "nvrtcCompileProgram", rc);
    r.cubin = program_cubin(p);
    if (r.cubin.empty()) {
        r.log += "\nno CUBIN produced: --gpu-architecture must name a real sm_XY architecture";
        return;
    }
    if (named) {
        const char* lowered = nullptr;
        rc = nvrtcGetLoweredName(p, req.name_expression.c_str(), &lowered);
        if (rc != NVRTC_SUCCESS) return fail(r, "nvrtcGetLoweredName", rc);
        r.lowered_name = lowered;
    } else {
        r.lowered_name = req.plain_name;
        // A plain (extern "C") name that ptxas compiled as no entry function is a __device__
        // function or a variable: the module would load, and the launch fail.
        const std::vector<std::string> entries = ptxas_entry_functions(r.log);
        if (!entries.empty() &&
            std::find(entries.begin(), entries.end(), req.plain_name) == entries.end()) {
            r.log += fmt::format(
                "\n'{}' is not a __global__ function of this source: hone launches kernels "
                "(__global__ functions) only; the source's are: {}",
                req.plain_name, fmt::join(entries, ", "));
            return;
        }
    }
    r.resources = parse_ptxas_info(r.log, r.lowered_name);
    r.ok = true;
}

}  // namespace

compile_result compile_nvrtc(const compile_request& req, double timeout_s) {
    const auto t0 = clock_type::now();
    compile_result r;
    // Standard headers NVRTC lacks, as in-memory headers, unless the kernel's own folders hold one.
    static const std::vector<std_shim> shims = std_shims(toolkit_includes());
    std::vector<const char*> shim_texts, shim_names;
    for (const std_shim& h : shims) {
        if (resolve_include({h.name, false}, {}, req.include_dirs)) continue;
        shim_texts.push_back(h.text.c_str());
        shim_names.push_back(h.name.c_str());
    }
    nvrtcProgram raw = nullptr;
    const nvrtcResult rc = nvrtcCreateProgram(&raw, req.source.c_str(), req.source_name.c_str(),
                                              static_cast<int>(shim_texts.size()),
                                              shim_texts.data(), shim_names.data());
    if (rc != NVRTC_SUCCESS) {
        fail(r, "nvrtcCreateProgram", rc);
    } else {
        const program_ptr p(raw);
        run_compile(p.get(), req, timeout_s, r);
    }
    r.compile_ms = std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
    return r;
}

std::vector<int> nvrtc_archs() {
    int n = 0;
    if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0) return {};
    std::vector<int> archs(static_cast<std::size_t>(n));
    if (nvrtcGetSupportedArchs(archs.data()) != NVRTC_SUCCESS) return {};
    return archs;
}

std::string nvrtc_version() {
    int major = 0, minor = 0;
    nvrtcVersion(&major, &minor);
    return fmt::format("{}.{}", major, minor);
}

}  // namespace hone
