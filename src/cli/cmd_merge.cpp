// hone merge: join results databases (a batch array's shards, several hosts' runs) into one.
#include <fmt/format.h>

#include "cli/commands_internal.hpp"
#include "store/merge.hpp"

namespace hone::cli {
namespace {

struct merge_args {
    std::vector<std::string> inputs;
    std::string output;
    bool mixed_kernels = false;
};

std::string result_text(const std::string& status, double median_us) {
    return median_us > 0 ? fmt::format("{} {:.3f} us", status, median_us) : status;
}

int run_merge(const merge_args& a) {
    merge_options opt;
    opt.mixed_kernels = a.mixed_kernels;
    const merge_report r = merge_databases(a.inputs, a.output, opt);
    constexpr std::size_t shown = 10;
    for (std::size_t i = 0; i < r.conflicts.size() && i < shown; ++i) {
        const merge_conflict& c = r.conflicts[i];
        fmt::print(stderr, "conflict: {} {} {}: kept {} ({}), dropped {} ({})\n", c.kernel,
                   c.problem, c.key, result_text(c.kept_status, c.kept_median_us), c.kept_from,
                   result_text(c.dropped_status, c.dropped_median_us), c.dropped_from);
    }
    if (r.conflicts.size() > shown)
        fmt::print(stderr, "conflict: ... {} more\n", r.conflicts.size() - shown);
    fmt::print("{}: {} run{}; {} result{} added, {} already there{}\n", a.output, r.runs,
               r.runs == 1 ? "" : "s", r.added, r.added == 1 ? "" : "s", r.identical,
               r.conflicts.empty()
                   ? ""
                   : fmt::format(", {} conflicting (kept: a timing over a failure, else the "
                                 "first met)",
                                 r.conflicts.size()));
    return 0;
}

}  // namespace

void register_merge(CLI::App& app, std::function<int()>& action) {
    auto a = std::make_shared<merge_args>();
    CLI::App* c = app.add_subcommand("merge", "Join results databases (shards, hosts) into one");
    c->footer(R"(Every run and result of the inputs is copied into the output (created when absent;
an existing output keeps its results and is merged into). Results of the same run identity
join one run; a configuration stored twice with identical results is kept once, so merging
again changes nothing. A configuration stored twice with different results is a conflict,
reported on stderr: the result with a timing is kept over a failure, else the one met first
(the output's, then the inputs' in the order given). Databases of different kernels are
refused unless --mixed-kernels. A missing, foreign, damaged or newer input is refused (exit 2)
and nothing is written.

Example (the shards of a batch array, docs/distributed.md):
  hone merge shard-0.db shard-1.db shard-2.db shard-3.db -o all.db)");
    c->add_option("inputs", a->inputs, "Results databases")->required();
    c->add_option("-o,--output", a->output, "The merged database (not one of the inputs)")
        ->required();
    c->add_flag("--mixed-kernels", a->mixed_kernels,
                "Accept databases of different kernels: each kernel's runs stay their own");
    c->callback([a, &action] { action = [a] { return run_merge(*a); }; });
}

}  // namespace hone::cli
