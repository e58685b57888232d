// hone space: the size of a config's search space, before and after constraints, and what it
// costs to build. Compiles nothing and needs neither a GPU nor the kernel source.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands_internal.hpp"
#include "cli/options.hpp"
#include "common/clock.hpp"
#include "driver/gpu.hpp"
#include "driver/target.hpp"
#include "hone/device_attrs.hpp"
#include "hone/spec.hpp"
#include "space/space.hpp"

namespace hone::cli {

std::string size_list_note(const spec& s) {
    std::vector<std::string> used, lists;
    for (const auto& [name, values] : s.problem_lists) {
        for (const auto& p : s.problem)
            if (p.name == name) used.push_back(fmt::format("{}={}", name, p.value));
        lists.push_back(fmt::format("{}: {}", name, fmt::join(values, ", ")));
    }
    if (lists.empty()) return "";
    return fmt::format(
        "problem sizes given as lists ({}): this is for {}; --set NAME=VALUE "
        "chooses another (hone tune covers every combination)",
        fmt::join(lists, "; "), fmt::join(used, ", "));
}

namespace {

struct space_args {
    std::string config;
    std::vector<std::string> sets;
    std::string arch;
    bool json = false;
};

std::string grouped(const std::string& digits) {
    if (digits.find_first_not_of("0123456789") != std::string::npos) return digits;
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string grouped(uint64_t n) {
    return grouped(std::to_string(n));
}

std::string bytes_text(double b) {
    if (b < 1024) return fmt::format("{:.0f} B", b);
    if (b < 1024 * 1024) return fmt::format("{:.1f} KiB", b / 1024);
    return fmt::format("{:.1f} MiB", b / (1024 * 1024));
}

// CPU time of this process: on a shared machine, wall time measures the neighbours too.
double cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

int64_t peak_rss_bytes() {
    rusage self{};
    getrusage(RUSAGE_SELF, &self);
    return static_cast<int64_t>(self.ru_maxrss) * 1024;  // KiB on Linux
}

// The device attributes constraints may use: from --arch, else the local GPU; none when the
// constraints use none (then no driver is needed).
std::optional<device_attrs> device_for(const spec& s, const std::string& arch) {
    std::vector<std::string> used;
    for (const auto& c : s.constraints)
        for (const auto& name : c.names())
            if (!s.find_param(name) &&
                std::find(device_attribute_names().begin(), device_attribute_names().end(), name) !=
                    device_attribute_names().end())
                used.push_back(name);
    if (arch.empty() && used.empty()) return std::nullopt;
    return target_device(
        arch, fmt::format("for the constraints' device attributes ({})", fmt::join(used, ", ")));
}

int run_space(const space_args& a) {
    const auto t0 = steady_clock::now();
    const spec s = load_spec(a.config, parse_sets(a.sets), load_options{.require_source = false});
    const double load_s = seconds_since(t0);
    bindings base = s.problem_bindings();
    const std::optional<device_attrs> dev = device_for(s, a.arch);
    if (dev) dev->add_to(base);
    const auto t1 = steady_clock::now();
    const double cpu0 = cpu_seconds();
    const search_space space(s, base);
    const double build_s = seconds_since(t1);
    const double build_cpu_s = cpu_seconds() - cpu0;
    const int64_t rss = peak_rss_bytes();
    const auto count = space.count();
    const double per_config =
        count && *count > 0 ? static_cast<double>(space.store_bytes()) / static_cast<double>(*count)
                            : 0;

    if (a.json) {
        nlohmann::json j{
            {"config", a.config},
            {"parameters", s.params.size()},
            {"constraints", s.constraints.size()},
            {"arch", dev ? dev->arch() : ""},
            {"cartesian", space.total()},
            {"valid", count ? nlohmann::json(*count) : nlohmann::json(space.estimated_count())},
            // Beyond 2^64 "valid" is a float: valid_text has the exact digits.
            {"valid_exact", !space.exact_count_text().empty()},
            {"valid_text", space.exact_count_text()},
            {"listed", space.enumerated()},
            {"estimate_rel_error95", space.estimate_rel_error()},
            {"estimate_draws", space.estimate_draws()},
            {"load_s", load_s},
            {"time_s", build_s},
            {"cpu_s", build_cpu_s},
            {"store_bytes", space.store_bytes()},
            {"bytes_per_config", per_config},
            {"peak_rss_bytes", rss},
            {"source_found", s.kernel.source_found},
            {"size_note", size_list_note(s)}};
        std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        return count && *count == 0 ? 1 : 0;
    }
    // The kernel's name and source path come from the config, which another tool may have
    // written (hone import-t1): shown escaped.
    print_text("{}: kernel {}{}\n", a.config, s.kernel.name,
               s.kernel.source_found
                   ? ""
                   : fmt::format(" (source not found: {}; hone check and tune need it)",
                                 s.kernel.source_path));
    if (const std::string note = size_list_note(s); !note.empty()) print_text("{}\n", note);
    fmt::print("parameters:  {}, constraints: {}{}\n", s.params.size(), s.constraints.size(),
               dev ? fmt::format(" (device attributes of {})", dev->arch()) : "");
    fmt::print("cartesian:   {}\n", space.total() == UINT64_MAX ? std::string("more than 2^64")
                                                                : grouped(space.total()));
    if (!space.exact_count_text().empty()) {
        fmt::print("valid:       {} (exact{})\n", grouped(space.exact_count_text()),
                   space.enumerated() ? ", listed" : ", too many to list: tuning samples them");
    } else if (space.estimate_rel_error() == std::numeric_limits<double>::infinity()) {
        fmt::print(
            "valid:       unknown, ESTIMATE: none of {} random draws was valid; too many to list\n",
            grouped(space.estimate_draws()));
    } else {
        fmt::print(
            "valid:       about {:.4g} ±{:.1f}% (ESTIMATE at 95% from {} random draws; too many to "
            "list)\n",
            space.estimated_count(), 100 * space.estimate_rel_error(),
            grouped(space.estimate_draws()));
    }
    fmt::print(
        "time:        {:.3f} s to build the space ({:.3f} s of CPU; {:.3f} s to load the config)\n",
        build_s, build_cpu_s, load_s);
    fmt::print("memory:      {}, peak RSS {}\n",
               space.enumerated()
                   ? fmt::format("{} for the list ({:.1f} B a configuration)",
                                 bytes_text(static_cast<double>(space.store_bytes())), per_config)
                   : std::string("nothing listed"),
               bytes_text(static_cast<double>(rss)));
    if (count && *count == 0) {
        fmt::print(
            "no configuration satisfies the constraints: hone check and tune refuse this "
            "config (exit code 1)\n");
        return 1;
    }
    return 0;
}

}  // namespace

void register_space(CLI::App& app, std::function<int()>& action) {
    auto a = std::make_shared<space_args>();
    CLI::App* c = app.add_subcommand("space",
                                     "Count a config's search space: cartesian size, valid "
                                     "configurations, time and memory (compiles nothing)");
    c->footer(
        R"(Builds the search space of CONFIG as `hone tune` would and prints its size before the
constraints (the cartesian product of the parameters' values) and after them, the time it
took and the memory it used. It compiles nothing and needs no GPU; the kernel source need not
exist (a config imported with `hone import-t1` usually has none yet).

A space of up to 16,777,216 valid configurations is listed: the count is exact. A larger one is
not listed; its count is exact when the constraints leave it computable (parameters no
constraint uses multiply it), else an ESTIMATE from random draws with its 95% interval.
Constraints that use device attributes (max_threads_per_block, ...) take them from --arch, or
from the local GPU.

Examples:
  hone space configs/sgemm.yaml --arch sm_90
  hone space configs/vector_add.yaml --arch sm_90 --json
  hone space gemm.yaml --set N=8192)");
    c->add_option("config", a->config, "Search config (YAML)")
        ->required()
        ->check(CLI::ExistingFile);
    c->add_option("--set", a->sets, "Override a problem size: NAME=VALUE (repeatable)");
    c->add_option("--arch", a->arch,
                  "Device attributes of this architecture, e.g. sm_90 (default: the local GPU's, "
                  "when the constraints use any)");
    c->add_flag("--json", a->json, "Machine-readable output");
    c->callback([a, &action] { action = [a] { return run_space(*a); }; });
}

}  // namespace hone::cli
