// hone check: validate a config and compile its configurations. No GPU needed.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/commands_internal.hpp"
#include "cli/options.hpp"
#include "compile/compile_hint.hpp"
#include "hone/spec.hpp"
#include "hone/tuner.hpp"

namespace hone::cli {
namespace {

// Blank where ptxas said nothing (a failed compile), so that the configuration column stays put.
std::string resources_text(const compile_result& r) {
    const resource_usage& u = r.resources;
    if (u.registers < 0) return fmt::format("{:27}", "");
    return fmt::format("{:>4} {:>6} {:>6} {:>6}", u.registers,
                       u.spill_store_bytes + u.spill_load_bytes, u.stack_bytes,
                       u.shared_static_bytes);
}

// Configurations with a reason in `reasons` (check_result::over_limits, launch_errors).
uint64_t with_reason(const std::vector<std::string>& reasons) {
    return static_cast<uint64_t>(
        std::count_if(reasons.begin(), reasons.end(), [](const auto& w) { return !w.empty(); }));
}

}  // namespace

int run_check(const check_args& a) {
    const spec s = load_spec(a.config, parse_sets(a.sets));
    check_options opt;
    opt.compilers = a.compilers;
    opt.arch = a.arch;
    opt.sample = a.sample;
    opt.seed = a.seed;
    opt.jobs = a.jobs;
    opt.use_cache = a.use_cache;
    opt.cache_dir = a.cache_dir;
    std::size_t seen = 0;
    // Failed compiles often share one log (a kernel that does not build at all): each distinct
    // log is printed once, numbered, and counted.
    struct log_group {
        std::size_t number = 0, count = 0;
        std::string first_key;
    };
    std::map<std::string, log_group> logs;
    // The header comes with the first result: an error before any (no target to compile for)
    // then stands alone.
    bool headed = false;
    auto header = [&] {
        if (headed || a.json) return;
        headed = true;
        print_text("{}: kernel {} ({})\n", a.config, s.kernel.name, s.kernel.source_path);
        if (const std::string note = size_list_note(s); !note.empty()) print_text("{}\n", note);
        // The configuration goes last: its width varies and would break the columns.
        fmt::print("{:<15} {:>9} {:>4} {:>6} {:>6} {:>6}  {}\n", "status", "compile", "regs",
                   "spill", "stack", "smem", "configuration");
    };
    if (!a.json) {
        opt.on_compiled = [&](const config& c, const compile_result& r, const std::string& over,
                              const std::string& launch) {
            header();
            ++seen;
            if (a.failures_only && r.ok && over.empty() && launch.empty()) return;
            const std::string st =
                r.ok ? "ok" : (r.timed_out ? "compile_timeout" : "compile_error");
            if (r.ok) {
                if (!over.empty() || !launch.empty()) {
                    print_text("{:<15} {:>6.0f} ms {}  {}  ({})\n",
                               over.empty() ? "launch_error" : "device_limits", r.compile_ms,
                               resources_text(r), c.key(s), over.empty() ? launch : over);
                    return;
                }
                print_text("{:<15} {:>6.0f} ms {}  {}\n", st, r.compile_ms, resources_text(r),
                           c.key(s));
                return;
            }
            // Logs that differ only in numbers (sizes, compile times) are one group, shown
            // without ptxas's resource report of the functions that did compile.
            const std::string shown = failure_log(r.log);
            auto [it, fresh] =
                logs.try_emplace(log_group_key(shown), log_group{logs.size() + 1, 0, c.key(s)});
            ++it->second.count;
            print_text("{:<15} {:>6.0f} ms {}  {}  [log {}]\n", st, r.compile_ms, resources_text(r),
                       c.key(s), it->second.number);
            if (fresh) print_text("log {}:\n{}\n", it->second.number, shown);
        };
    }
    const check_result res = check(s, opt);
    header();
    if (a.json) {
        nlohmann::json j;
        j["config"] = a.config;
        j["arch"] = res.arch;
        j["total"] = res.total;
        j["valid"] = res.valid;
        j["valid_text"] = res.valid_text;
        j["compiled"] = res.compiled;
        j["compiled_by_other_ranks"] = res.remote;
        j["failed"] = res.failed;
        j["wall_s"] = res.wall_s;
        j["reference_error"] = res.reference_error;
        j["size_note"] = size_list_note(s);
        for (std::size_t i = 0; i < res.results.size(); ++i) {
            const auto& [key, r] = res.results[i];
            j["results"].push_back(
                {{"key", key},
                 {"ok", r.ok},
                 {"over_limits", res.over_limits[i]},
                 {"launch_error", res.launch_errors[i]},
                 {"timed_out", r.timed_out},
                 {"compile_ms", r.compile_ms},
                 {"registers", r.resources.registers},
                 {"spill_bytes", r.resources.spill_store_bytes + r.resources.spill_load_bytes},
                 {"stack_bytes", r.resources.stack_bytes},
                 {"shared_static_bytes", r.resources.shared_static_bytes},
                 {"log", r.ok ? "" : r.log}});
        }
        std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else {
        fmt::print(
            "search space: {} configurations, {} satisfy the constraints; arch {}\n",
            res.total == UINT64_MAX ? std::string("more than 2^64") : std::to_string(res.total),
            res.valid_text, res.arch);
        const uint64_t over = with_reason(res.over_limits);
        const uint64_t launch = with_reason(res.launch_errors);
        fmt::print("compiled {} ({}): {} ok, {} failed{} in {:.1f} s ({:.0f} configurations/s){}\n",
                   res.compiled,
                   a.sample > 0 && static_cast<uint64_t>(a.sample) < res.valid
                       ? fmt::format("a sample of {}", a.sample)
                       : "all",
                   res.compiled - res.failed - over - launch, res.failed,
                   fmt::format("{}{}",
                               over > 0 ? fmt::format(", {} beyond the device's limits (a run "
                                                      "records them as device_limits)",
                                                      over)
                                        : "",
                               launch > 0 ? fmt::format(", {} whose args do not fit the "
                                                        "kernel's parameters (launch_error)",
                                                        launch)
                                          : ""),
                   res.wall_s, static_cast<double>(res.compiled) / std::max(res.wall_s, 1e-9),
                   res.remote > 0 ? fmt::format("; {} by other MPI ranks", res.remote) : "");
        std::vector<const log_group*> groups;
        for (const auto& [log, g] : logs) groups.push_back(&g);
        std::sort(groups.begin(), groups.end(),
                  [](const log_group* x, const log_group* y) { return x->number < y->number; });
        for (const log_group* g : groups)
            print_text("log {}: {} configuration{}{}\n", g->number, g->count,
                       g->count == 1 ? "" : "s",
                       g->first_key.empty() ? "" : fmt::format(" (first {})", g->first_key));
        if (!res.reference_error.empty()) print_text("error: {}\n", res.reference_error);
    }
    return res.failed == 0 && with_reason(res.launch_errors) == 0 && res.reference_error.empty()
               ? 0
               : 1;
}

void register_check(CLI::App& app, std::function<int()>& action) {
    auto a = std::make_shared<check_args>();
    CLI::App* c = app.add_subcommand("check",
                                     "Validate a config and compile every configuration "
                                     "with NVRTC (no GPU needed)");
    c->footer(R"(Prints the size of the search space before and after constraints, then one line per
configuration: compile status, compile time, and what ptxas reports (registers, spilled bytes,
stack frame, static shared memory). Exit code 1 if any configuration fails to compile, or if
its args do not fit the kernel's parameters (launch_error).

Examples:
  hone check configs/sgemm.yaml --arch sm_90
  hone check configs/vector_add.yaml --arch sm_90 --sample 20 --failures-only)");
    c->add_option("config", a->config, "Search config (YAML)")
        ->required()
        ->check(CLI::ExistingFile);
    c->add_option("--set", a->sets, "Override a problem size: NAME=VALUE (repeatable)");
    c->add_option("--arch", a->arch, "Target architecture, e.g. sm_90 (default: the local GPU's)");
    c->add_option("--sample", a->sample, "Compile a random sample of K configurations")
        ->check(whole_number(1, std::numeric_limits<int>::max()));
    c->add_option("--seed", a->seed, "Seed of --sample")->check(seed_number());
    c->add_option("-j,--jobs", a->jobs, "Compile worker processes (default: one per core)")
        ->check(whole_number(0, std::numeric_limits<int>::max()));
    c->add_flag("--failures-only", a->failures_only, "Print only configurations that fail");
    c->add_flag("--cache", a->use_cache, "Use the compile cache (default: compile for real)");
    c->add_flag("--json", a->json, "Machine-readable output");
    c->callback([a, &action] { action = [a] { return run_check(*a); }; });
}

}  // namespace hone::cli
