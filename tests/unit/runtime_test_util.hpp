// Synthetic specs, tuned entries, databases and CLI runs for the kernel handle's tests.
#pragma once
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "../run_command.hpp"
#include "compile/compile.hpp"
#include "hone/device_attrs.hpp"
#include "hone/spec.hpp"
#include "hone/store.hpp"
#include "hone/wisdom.hpp"

namespace rt_test {

inline const std::string vector_add_source = HONE_SOURCE_DIR "/kernels_src/vector_add.cu";

// 1-D: BLOCK x VEC, N must be a multiple of VEC; the reference is BLOCK=256, VEC=1.
inline std::string spec_1d(const std::string& extra_constraint = "") {
    return fmt::format(R"y(kernel: {{source: {}, name: "vector_add<{{VEC}}, false>"}}
problem: {{N: 1024}}
params: {{BLOCK: [64, 128, 256], VEC: [1, 2, 4]}}
constraints: ["N % VEC == 0"{}]
buffers: {{a: {{type: float, count: N}}, b: {{type: float, count: N}}, c: {{type: float, count: N, role: out}}}}
args: [a, b, c, {{value: N, type: int64}}]
launch: {{grid: ["ceil_div(N, BLOCK * VEC)"], block: [BLOCK]}}
verify: {{reference: {{BLOCK: 256, VEC: 1}}}}
)y",
                       vector_add_source,
                       extra_constraint.empty() ? "" : ", \"" + extra_constraint + "\"");
}

// 2-D: a square TILE must divide M and N.
inline std::string spec_2d() {
    return fmt::format(R"y(kernel: {{source: {}, name: "vector_add<1, false>"}}
problem: {{M: 256, N: 256}}
params: {{TILE: [8, 16, 32, 64]}}
constraints: ["M % TILE == 0", "N % TILE == 0"]
buffers: {{a: {{type: float, count: M * N}}, c: {{type: float, count: M * N, role: out}}}}
args: [a, c, {{value: M * N, type: int64}}]
launch: {{grid: [N / TILE, M / TILE], block: [TILE, TILE]}}
)y",
                       vector_add_source);
}

inline hone::spec load_synthetic(const std::string& text) {
    return hone::load_spec_text(text, HONE_SOURCE_DIR "/configs/synthetic.yaml");
}

inline hone::device_attrs h100(const std::string& name = "NVIDIA H100 80GB HBM3") {
    hone::device_attrs d = *hone::nominal_device("sm_90");
    d.name = name;
    return d;
}

using params = std::vector<std::pair<std::string, hone::value>>;

inline params va(int64_t block, int64_t vec) {
    return {{"BLOCK", block}, {"VEC", vec}};
}
inline params tile(int64_t t) {
    return {{"TILE", t}};
}

// An entry of `s`'s kernel; configs as (params, relative time), best first (rel 1).
inline hone::tuned_entry entry(const hone::spec& s, const std::string& device,
                               std::vector<std::pair<std::string, int64_t>> problem,
                               const std::vector<std::pair<params, double>>& configs,
                               const std::string& arch = "sm_90") {
    hone::tuned_entry e;
    e.kernel = s.kernel.name;
    e.config = s.path;
    e.source_hash = hone::kernel_source_hash(s);
    e.spec_hash = "spec";
    e.device_name = device;
    e.device_uuid = "GPU-0";
    e.arch = arch;
    e.driver_version = 13000;
    e.nvrtc_version = "13.0";
    e.tool_version = "0.2.0";
    e.problem = std::move(problem);
    e.tuned_at = "2026-01-01T00:00:00Z";
    for (const auto& [p, rel] : configs) e.configs.push_back({p, 10.0 * rel, 10.0 * rel, rel});
    e.ranked = e.configs.size();
    return e;
}

inline std::string params_key(const params& p) {
    std::string out;
    for (const auto& [n, v] : p)
        out += fmt::format("{}{}={}", out.empty() ? "" : ",", n, hone::template_text(v));
    return out;
}

// A results store holding one run per (problem, configs with median times in us).
inline void add_run(hone::results_store& db, const hone::spec& s, const std::string& device,
                    const std::string& problem, const std::vector<std::pair<params, double>>& times,
                    const std::string& objective = "time") {
    hone::run_identity id;
    id.config_path = s.path;
    id.kernel_name = s.kernel.name;
    id.source_hash = hone::kernel_source_hash(s);
    id.spec_hash = "spec";
    id.problem = problem;
    id.device_name = device;
    id.device_uuid = "GPU-0";
    id.arch = "sm_90";
    id.driver_version = 13000;
    id.nvrtc_version = "13.0";
    id.tool_version = hone::tool_version();
    id.objective = objective;
    const int64_t run = db.begin_run(id);
    for (const auto& [p, us] : times) {
        hone::eval_record r;
        r.key = params_key(p);
        r.params = p;
        r.st = us > 0 ? hone::status::ok : hone::status::wrong_result;
        r.gpu.st = r.st;
        r.gpu.time_us.n = 10;
        r.gpu.time_us.median = us > 0 ? us : 0;
        r.gpu.time_us.ci_low = r.gpu.time_us.ci_high = r.gpu.time_us.median;
        r.gbps = us > 0 ? 1000.0 / us : 0;
        db.put(run, r);
    }
}

struct cli_output {
    int rc = -1;
    std::string output;  // stdout and stderr
};

// Runs the hone binary with `args` (a shell-quoted string), stderr with stdout.
inline cli_output hone_cli(const std::string& args) {
    const command_result c = run_command(fmt::format("{} {} 2>&1", HONE_BINARY, args));
    return {c.rc, c.output};
}

}  // namespace rt_test
