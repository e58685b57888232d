// The kernel handle's costs on a GPU (bench/kernel.sh runs it; bench/RESULTS.md has the figures):
//   - host time of one k.launch() against one cuLaunchKernel of the same CUBIN: launches are
//     queued behind a gate (cuStreamWaitValue32 on a host word) in rounds of 200, so the queue
//     neither drains nor fills while each call is timed on the host; rounds of the two kinds
//     alternate; medians over 10^4 calls each;
//   - the first launch of a size with a warm compile cache (selection, cache read, library
//     load, launch) and with a cold one (one NVRTC compile), each through a fresh handle.
//
//   hone_kernel_bench [--vector-add CONFIG] [--sgemm CONFIG] [--wisdom FILE] [--json FILE]
#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compile/compile.hpp"
#include "compile/compile_cache.hpp"
#include "driver/cuda_api.hpp"
#include "driver/devices.hpp"
#include "driver/resources.hpp"
#include "hone/kernel.hpp"
#include "hone/spec.hpp"
#include "hone/tuner.hpp"
#include "runtime/select.hpp"
#include "space/space.hpp"
#include "tune/internal.hpp"

using namespace hone;
using clk = std::chrono::steady_clock;

namespace {

double us_since(clk::time_point t0) {
    return std::chrono::duration<double, std::micro>(clk::now() - t0).count();
}

struct stats {
    double median = 0, p10 = 0, p90 = 0;
    std::size_t n = 0;
};

stats quantiles(std::vector<double> v) {
    stats s;
    s.n = v.size();
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    auto at = [&](double q) {
        return v[std::min(v.size() - 1, static_cast<std::size_t>(q * (v.size() - 1) + 0.5))];
    };
    s.median = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    s.p10 = at(0.1);
    s.p90 = at(0.9);
    return s;
}

nlohmann::ordered_json to_json(const stats& s) {
    return {{"median", s.median}, {"p10", s.p10}, {"p90", s.p90}, {"n", s.n}};
}

std::string fresh_dir(const char* what) {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / fmt::format("hone-bench-{}-XXXXXX", what))
            .string();
    if (!mkdtemp(tmpl.data())) throw env_error("mkdtemp failed");
    return tmpl;
}

// The CUBIN and launch of the configuration the handle chose, built the way the handle builds
// it, for the raw cuLaunchKernel.
struct raw_launch {
    std::unique_ptr<cu::module> mod;
    CUfunction fn = nullptr;
    launch_dims dims;
    std::vector<kernel_arg> args;
};

raw_launch make_raw(const std::string& config, const kernel_selection& sel, int64_t n,
                    const device_attrs& dev, const std::string& cache_dir) {
    const spec s = load_spec(config, {{"N", n}});
    hone::config c;
    for (const auto& [name, v] : sel.params) c.values.push_back(v);
    const bindings scope = c.scope(s, runtime::size_scope(s, {n}, dev));
    const compile_request req = make_compile_request(s, c, scope, dev.arch());
    compile_cache cache(cache_dir);
    std::optional<compile_result> r = cache.get(req.cache_key());
    if (!r) r = compile_nvrtc(req);
    if (!r->ok) throw env_error("the raw launch's compile failed:\n" + r->log);
    raw_launch out;
    out.mod = std::make_unique<cu::module>(r->cubin.data());
    out.fn = out.mod->function(r->lowered_name);
    out.dims = eval_launch(s, s.launch.grid, s.launch.block, scope);
    out.args = eval_args(s, scope);
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    std::string va_config = "configs/vector_add.yaml", sgemm_config = "configs/sgemm.yaml", wisdom,
                json_out;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string opt = argv[i], v = argv[i + 1];
        if (opt == "--vector-add")
            va_config = v;
        else if (opt == "--sgemm")
            sgemm_config = v;
        else if (opt == "--wisdom")
            wisdom = v;
        else if (opt == "--json")
            json_out = v;
        else {
            std::fprintf(stderr, "unknown option %s\n", opt.c_str());
            return 2;
        }
    }
    try {
        const cu::api& a = cu::driver();
        const device_info dev = cu::read_device_info(0);
        cu::primary_context ctx(0);
        cu::stream st;
        cu::stream_gate gate;
        nlohmann::ordered_json out;
        out["device"] = dev.attrs.name;
        const std::string warm_dir = fresh_dir("warm");
        kernel_options warm;
        warm.cache_dir = warm_dir;

        // ---- launch overhead ----
        const int64_t n = 4096;
        cu::device_buffer da(n * 4, false), db(n * 4, false), dc(n * 4, false);
        std::vector<float> ha(n), hb(n);
        for (int64_t i = 0; i < n; ++i) {
            ha[i] = static_cast<float>(i);
            hb[i] = 0.5f * static_cast<float>(i);
        }
        da.upload(ha.data());
        db.upload(hb.data());
        const kernel k = kernel::open(va_config, wisdom, warm);
        float* pa = reinterpret_cast<float*>(da.ptr());
        float* pb = reinterpret_cast<float*>(db.ptr());
        float* pc = reinterpret_cast<float*>(dc.ptr());
        k.launch(st.get(), {{"N", n}}, pa, pb, pc);
        st.synchronize();
        const kernel_selection sel = k.selection({{"N", n}});
        raw_launch raw = make_raw(va_config, sel, n, dev.attrs, warm_dir);
        uint64_t slots[8] = {};
        std::vector<void*> params;
        for (std::size_t i = 0; i < raw.args.size(); ++i) {
            slots[i] =
                raw.args[i].buffer < 0
                    ? raw.args[i].bits
                    : std::vector<CUdeviceptr>{da.ptr(), db.ptr(), dc.ptr()}.at(raw.args[i].buffer);
            params.push_back(&slots[i]);
        }
        const CUstream s = st.get();
        const std::function<void()> kinds[] = {
            [&] {
                cu::check(
                    a.cuLaunchKernel(raw.fn, raw.dims.grid[0], raw.dims.grid[1], raw.dims.grid[2],
                                     raw.dims.block[0], raw.dims.block[1], raw.dims.block[2],
                                     raw.dims.shared_bytes, s, params.data(), nullptr),
                    "cuLaunchKernel");
            },
            [&] {
                k.launch(s, {{"N", n}}, pa, pb, pc);
            },
            [&] {
                k.launch(s, {{"N", n}}, pa, pb, pc, n);
            },
        };
        const char* names[] = {"raw cuLaunchKernel", "k.launch(), buffers only",
                               "k.launch(), every argument"};
        constexpr int rounds = 50, batch = 200;  // 10^4 calls of each kind
        std::vector<double> times[3];
        bool gated = true;
        for (int r = 0; r < rounds + 1; ++r) {  // round 0 warms up, not counted
            for (int kind = 0; kind < 3; ++kind) {
                const bool held = gate.hold(st);
                gated = gated && held;
                for (int i = 0; i < batch; ++i) {
                    const auto t0 = clk::now();
                    kinds[kind]();
                    const double us = us_since(t0);
                    if (r > 0) times[kind].push_back(us);
                }
                gate.release();
                st.synchronize();
            }
        }
        std::vector<float> hc(n);
        dc.download(hc.data());
        int wrong = 0;
        for (int64_t i = 0; i < n; ++i) wrong += hc[i] != ha[i] + hb[i];
        nlohmann::ordered_json ov;
        ov["selection"] = sel.describe();
        ov["gated"] = gated;
        ov["wrong_elements"] = wrong;
        stats st_kind[3];
        for (int kind = 0; kind < 3; ++kind) {
            st_kind[kind] = quantiles(times[kind]);
            ov[names[kind]] = to_json(st_kind[kind]);
        }
        ov["overhead_us"] = st_kind[1].median - st_kind[0].median;
        ov["overhead_all_args_us"] = st_kind[2].median - st_kind[0].median;
        out["launch"] = ov;

        // ---- first launch of a size ----
        auto first_launch = [&](const std::string& config, const std::vector<int64_t>& sizes,
                                bool cold, bool sgemm) {
            std::vector<double> open_us, first_us, second_us;
            for (int64_t size : sizes) {
                kernel_options opt;
                opt.cache_dir = cold ? fresh_dir("cold") : warm_dir;
                const int64_t elems = sgemm ? size * size : size;
                cu::device_buffer x(elems * 4, false), y(elems * 4, false), z(elems * 4, false);
                float* px = reinterpret_cast<float*>(x.ptr());
                float* py = reinterpret_cast<float*>(y.ptr());
                float* pz = reinterpret_cast<float*>(z.ptr());
                auto launch = [&](const kernel& h) {
                    if (sgemm)
                        h.launch(s, {{"M", size}, {"N", size}, {"K", size}}, px, py, pz);
                    else
                        h.launch(s, {{"N", size}}, px, py, pz);
                };
                if (!cold) {  // the cache holds this size's CUBIN: one handle put it there
                    const kernel primer = kernel::open(config, wisdom, opt);
                    launch(primer);
                    st.synchronize();
                }
                auto t0 = clk::now();
                const kernel h = kernel::open(config, wisdom, opt);
                open_us.push_back(us_since(t0));
                t0 = clk::now();
                launch(h);
                first_us.push_back(us_since(t0));
                st.synchronize();
                t0 = clk::now();
                launch(h);
                second_us.push_back(us_since(t0));
                st.synchronize();
                if (cold) std::filesystem::remove_all(opt.cache_dir);
            }
            return nlohmann::ordered_json{{"sizes", sizes},
                                          {"open_us", to_json(quantiles(open_us))},
                                          {"first_launch_us", to_json(quantiles(first_us))},
                                          {"second_launch_us", to_json(quantiles(second_us))},
                                          {"first_launch_all_us", first_us}};
        };
        out["first_vector_add_warm"] =
            first_launch(va_config, {5001, 7001, 9001, 11001, 13001, 15001, 17001}, false, false);
        out["first_vector_add_cold"] = first_launch(va_config, {6001, 8001, 10001}, true, false);
        out["first_sgemm_warm"] = first_launch(sgemm_config, {384, 640, 896}, false, true);
        out["first_sgemm_cold"] = first_launch(sgemm_config, {512}, true, true);
        std::filesystem::remove_all(warm_dir);

        if (!json_out.empty()) std::ofstream(json_out) << out.dump(2) << "\n";
        // The markdown table for bench/RESULTS.md.
        fmt::print(
            "Kernel handle on {} ({}; launches queued behind a {}, rounds of {} calls, {} rounds "
            "of each kind alternated)\n\n",
            dev.attrs.name, sel.describe(), gated ? "gate" : "stream (the driver refused the gate)",
            batch, rounds);
        fmt::print("| measure | median | p10 | p90 | calls | goal |\n|---|---|---|---|---|---|\n");
        for (int kind = 0; kind < 3; ++kind)
            fmt::print("| host time of one {} | {:.3f} µs | {:.3f} µs | {:.3f} µs | {} | |\n",
                       names[kind], st_kind[kind].median, st_kind[kind].p10, st_kind[kind].p90,
                       st_kind[kind].n);
        fmt::print(
            "| **overhead of k.launch() over cuLaunchKernel** (buffers only) | **{:.3f} µs** | | | "
            "| ≤ 1 µs |\n",
            st_kind[1].median - st_kind[0].median);
        fmt::print("| overhead, every argument given | {:.3f} µs | | | | ≤ 1 µs |\n",
                   st_kind[2].median - st_kind[0].median);
        auto row = [&](const char* what, const nlohmann::ordered_json& j, const char* goal) {
            const auto& f = j["first_launch_us"];
            fmt::print("| {} | {:.3f} ms | {:.3f} ms | {:.3f} ms | {} | {} |\n", what,
                       f["median"].get<double>() / 1000, f["p10"].get<double>() / 1000,
                       f["p90"].get<double>() / 1000, f["n"].get<std::size_t>(), goal);
        };
        row("first launch of a size, warm cache: vector_add", out["first_vector_add_warm"],
            "≤ 2 ms");
        row("first launch of a size, cold cache: vector_add (one NVRTC compile)",
            out["first_vector_add_cold"], "");
        row("first launch of a size, warm cache: SGEMM", out["first_sgemm_warm"], "≤ 2 ms");
        row("first launch of a size, cold cache: SGEMM (one NVRTC compile)",
            out["first_sgemm_cold"], "");
        fmt::print("| kernel::open (config + wisdom), vector_add | {:.3f} ms | | | {} | |\n",
                   out["first_vector_add_warm"]["open_us"]["median"].get<double>() / 1000,
                   out["first_vector_add_warm"]["open_us"]["n"].get<std::size_t>());
        fmt::print(
            "| second launch of the same size (hot path, unqueued) | {:.3f} µs | | | {} | |\n",
            out["first_vector_add_warm"]["second_launch_us"]["median"].get<double>(),
            out["first_vector_add_warm"]["second_launch_us"]["n"].get<std::size_t>());
        if (wrong)
            fmt::print("\nERROR: {} elements of c differ from a + b after the launches\n", wrong);
        return wrong ? 1 : 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 3;
    }
}
