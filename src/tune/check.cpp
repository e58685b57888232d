// `check`: validate a spec and compile its configurations with NVRTC. Needs no GPU.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "common/clock.hpp"
#include "compile/compile_cache.hpp"
#include "compile/compile_hint.hpp"
#include "compile/compile_pool.hpp"
#include "driver/param_sizes.hpp"
#include "driver/target.hpp"
#include "hone/tuner.hpp"
#include "tune/internal.hpp"

namespace hone {
namespace {

// Every configuration, or `opt.sample` of them drawn without replacement. A space too large
// to list can only be sampled.
std::vector<point> pick_configurations(const spec& s, const search_space& space,
                                       const check_options& opt) {
    std::mt19937_64 rng(opt.seed);
    const auto wanted = static_cast<uint64_t>(std::max(opt.sample, 0));
    std::vector<point> out;
    if (space.enumerated()) {
        const uint64_t n = *space.count();
        if (wanted == 0 || wanted >= n) {
            for (uint64_t i = 0; i < n; ++i) out.push_back(space.at(i));
            return out;
        }
        std::set<uint64_t> seen;
        while (out.size() < wanted) {
            const uint64_t i = rng() % n;
            if (seen.insert(i).second) out.push_back(space.at(i));
        }
        return out;
    }
    if (wanted == 0)
        throw input_error(
            {s.path, 0, 0},
            fmt::format("the space is too large to list (about {:.3g} valid configurations "
                        "of {}): pass --sample N to compile a random sample",
                        space.estimated_count(), space.total()));
    std::set<point> seen;
    // Distinct draws: stop when the draws keep repeating (a space smaller than the sample).
    for (uint64_t misses = 0; out.size() < wanted && misses < 1000;) {
        const auto p = space.sample(rng);
        if (!p) break;
        if (seen.insert(*p).second) {
            out.push_back(*p);
        } else {
            ++misses;
        }
    }
    return out;
}

// Why a compiled configuration could not launch on `dev` (what a run's GPU worker would refuse
// as device_limits, from the compile's report instead of the loaded function's attributes): ""
// where it could.
std::string over_limits(const device_attrs& dev, const launch_dims& d, const resource_usage& u) {
    const uint64_t threads = uint64_t{d.block[0]} * d.block[1] * d.block[2];
    if (threads > static_cast<uint64_t>(dev.max_threads_per_block))
        return fmt::format("{} threads a block; {} has at most {}", threads, dev.arch(),
                           dev.max_threads_per_block);
    const uint64_t shared = uint64_t{d.shared_bytes} + static_cast<uint64_t>(u.shared_static_bytes);
    if (shared > static_cast<uint64_t>(dev.max_shared_per_block_optin))
        return fmt::format("{} bytes of shared memory a block; {} has at most {}", shared,
                           dev.arch(), dev.max_shared_per_block_optin);
    // Registers are allocated per warp in units of 256.
    const uint64_t per_warp = (static_cast<uint64_t>(u.registers) * 32 + 255) / 256 * 256;
    const uint64_t regs = (threads + 31) / 32 * per_warp;
    if (u.registers > 0 && regs > static_cast<uint64_t>(dev.regs_per_block))
        return fmt::format(
            "{} registers a thread x {} threads need {} registers a block; {} has "
            "{}",
            u.registers, threads, regs, dev.arch(), dev.regs_per_block);
    return "";
}

}  // namespace

check_result check(const spec& s, const check_options& opt) {
    const auto t0 = steady_clock::now();
    check_result out;
    const device_attrs dev = target_device(opt.arch, "to compile for");
    // --arch as given (sm_90a: the arch-specific features), else the local GPU's.
    out.arch = opt.arch.empty() ? dev.arch() : opt.arch;
    if (const std::vector<int> archs = nvrtc_archs();
        !archs.empty() &&
        std::find(archs.begin(), archs.end(), 10 * dev.cc_major + dev.cc_minor) == archs.end())
        throw input_error({"--arch", 0, 0},
                          fmt::format("NVRTC {} does not compile for {}: it compiles for sm_{} .. "
                                      "sm_{}",
                                      nvrtc_version(), out.arch, archs.front(), archs.back()));
    bindings base = s.problem_bindings();
    dev.add_to(base);
    const search_space space(s, base);
    out.total = space.total();
    out.valid_exact = space.count().has_value();
    // An estimate, or an exact count beyond 2^64, saturates the uint64 at its maximum;
    // valid_text has the count itself.
    const double estimate = std::round(space.estimated_count());
    out.valid = space.count().value_or(
        estimate < 18446744073709551616.0 ? static_cast<uint64_t>(estimate) : UINT64_MAX);
    out.valid_text = !space.exact_count_text().empty()
                         ? space.exact_count_text()
                         : fmt::format("about {:.3g} (estimated)", space.estimated_count());
    space.require_nonempty();
    make_run_plan(s, space);  // buffer counts and memory kinds evaluate
    // The reference must compile, or nothing could be verified; where it does not, the
    // configurations are still compiled: their errors say more than the reference's alone (it
    // is often one of them).
    try {
        make_reference(s, space, out.arch,
                       [](const compile_request& r) { return compile_nvrtc(r, 0); });
    } catch (const input_error& e) {
        out.reference_error = e.what();
    }

    const std::vector<point> todo = pick_configurations(s, space, opt);
    std::unique_ptr<compile_cache> cache;
    if (opt.use_cache) {
        cache = std::make_unique<compile_cache>(opt.cache_dir.empty() ? compile_cache::default_dir()
                                                                      : opt.cache_dir);
    }
    compile_pool pool(opt.jobs > 0 ? opt.jobs : default_jobs(), cache.get(),
                      std::max(60.0, s.timing.timeout_s));
    for (const auto& c : opt.compilers) pool.add_remote(c);
    std::map<uint64_t, std::size_t> index;  // ticket -> position in todo
    out.results.resize(todo.size());
    out.over_limits.resize(todo.size());
    out.launch_errors.resize(todo.size());
    std::vector<launch_dims> dims(todo.size());
    std::vector<std::vector<kernel_arg>> args(todo.size());
    const std::size_t window = static_cast<std::size_t>(4 * pool.jobs() + 4);
    std::size_t next = 0, finished = 0;
    while (finished < todo.size()) {
        while (next < todo.size() && pool.in_flight() < window) {
            const config c = space.to_config(todo[next]);
            const bindings scope = c.scope(s, base);
            try {  // launch sizes, arguments and metrics must evaluate for every configuration
                dims[next] = eval_launch(s, s.launch.grid, s.launch.block, scope);
                args[next] = eval_args(s, scope);
                eval_memory(s, scope);
                // A metric that cannot be evaluated would stop a run at its first result.
                if (s.metrics.bytes) s.metrics.bytes->eval_real(scope);
                if (s.metrics.flops) s.metrics.flops->eval_real(scope);
            } catch (const input_error& e) {
                throw input_error(e.pos(),
                                  fmt::format("in configuration {}: {}", c.key(s), e.message()));
            }
            index[pool.submit(make_compile_request(s, c, scope, out.arch))] = next;
            out.results[next].first = c.key(s);
            ++next;
        }
        auto got = pool.wait(-1);
        if (!got) break;
        const std::size_t at = index.at(got->first);
        ++finished;
        ++out.compiled;
        if (!got->second.ok) {
            ++out.failed;
            if (const std::string hint = compile_hint(s, got->second.log); !hint.empty())
                got->second.log += (got->second.log.ends_with('\n') ? "" : "\n") + hint;
        }
        if (got->second.ok) out.over_limits[at] = over_limits(dev, dims[at], got->second.resources);
        if (got->second.ok && out.over_limits[at].empty())
            if (const auto sizes = cubin_param_sizes(got->second.cubin, got->second.lowered_name))
                out.launch_errors[at] = args_mismatch(*sizes, args[at]);
        if (opt.on_compiled)
            opt.on_compiled(space.to_config(todo[at]), got->second, out.over_limits[at],
                            out.launch_errors[at]);
        out.results[at].second = std::move(got->second);
    }
    out.wall_s = seconds_since(t0);
    out.remote = pool.counts().remote;
    return out;
}

}  // namespace hone
