// hone show: print stored results.
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include <iostream>

#include "cli/commands_internal.hpp"
#include "hone/report.hpp"
#include "hone/store.hpp"

namespace hone::cli {
namespace {

struct show_args {
    std::string db, where;
    std::size_t top = 10;
    bool json = false, all = false;
};

int run_show(const show_args& a) {
    struct stat st{};
    if (stat(a.db.c_str(), &st) != 0) throw env_error(fmt::format("{}: no such results database", a.db));
    results_store store(a.db);
    const auto runs = store.runs();
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& run : runs) {
        store_query q;
        q.identity = run.id();
        q.where = a.where;
        const auto records = store.query(q);
        if (a.json) {
            out.push_back({{"identity", to_json(run)}, {"results", to_json(records)}});
            continue;
        }
        if (run.origin.empty()) {
            fmt::print("{} on {} ({}), {}; hone {}, NVRTC {}; run {}\n", run.kernel_name,
                       run.device_name, run.arch, run.problem, run.tool_version, run.nvrtc_version,
                       run.id().substr(0, 12));
        } else {  // measured elsewhere: never mixed with hone's own runs
            fmt::print("{} on {}, {}; imported: {}; run {}\n", run.kernel_name, run.device_name,
                       run.problem, run.origin, run.id().substr(0, 12));
        }
        fmt::print("{}\n", status_summary(records));
        table_options t;
        t.top = a.all ? 0 : a.top;
        fmt::print("{}\n", best_table(records, t));
    }
    if (a.json) std::cout << out.dump(2) << "\n";
    if (runs.empty() && !a.json) fmt::print("{}: no runs stored\n", a.db);
    return 0;
}

}  // namespace

void register_show(CLI::App& app, std::function<int()>& action) {
    auto a = std::make_shared<show_args>();
    CLI::App* c = app.add_subcommand("show", "Print stored results, best first");
    c->footer(R"(--where takes comma-separated terms NAME OP VALUE (OP: = != < <= > >=), where NAME is a
parameter or one of status, median_us, gbps, gflops, regs, occupancy.

Each run is headed by its id (the first 12 characters: what --run of `hone export` and
`hone report` takes) and, for an imported run, the tool and file its data came from.

Examples:
  hone show configs/vector_add.db --top 5
  hone show configs/vector_add.db --where "VEC=4,status=ok" --json)");
    c->add_option("db", a->db, "Results database")->required();
    c->add_option("--top", a->top, "Rows per run (default 10)");
    c->add_flag("--all", a->all, "Every ranked row");
    c->add_option("--where", a->where, "Filter, e.g. \"BLOCK>=256,status=ok\"");
    c->add_flag("--json", a->json, "Machine-readable output");
    c->callback([a, &action] { action = [a] { return run_show(*a); }; });
}

}  // namespace hone::cli
