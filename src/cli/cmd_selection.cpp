// hone selection-quality: how well the kernel handle's selection does at sizes that were not
// tuned, measured on tuned ones (src/runtime/holdout.hpp). No GPU needed.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands_internal.hpp"
#include "hone/spec.hpp"
#include "hone/wisdom.hpp"
#include "runtime/holdout.hpp"

namespace hone::cli {
namespace {

struct quality_args {
    std::string config;
    std::vector<std::string> tuned;
    std::string arch;
    bool json = false;
};

int run_quality(const quality_args& a) {
    const spec s = load_spec(a.config);
    std::vector<tuned_entry> entries;
    for (const auto& path : a.tuned) {
        auto more = read_tuned(path);
        entries.insert(entries.end(), std::make_move_iterator(more.begin()),
                       std::make_move_iterator(more.end()));
    }
    const runtime::holdout_report r = runtime::evaluate_holdout(s, entries, a.arch);
    // Tuned files that hold no size to hold out cannot answer the question: bad input (exit 2),
    // as a file of another kernel is; exit 1 is for failures a run found.
    if (r.held_out == 0) {
        fmt::print(
            stderr, "{}",
            terminal_text(fmt::format(
                "error: {}: no held-out size: tune {} at 2 or more sizes on one device first{}\n",
                fmt::join(a.tuned, ", "), s.kernel.name,
                r.stale
                    ? fmt::format(" ({} runs are stale: the kernel source changed since)", r.stale)
                    : "")));
        return 2;
    }
    if (a.json) {
        nlohmann::ordered_json j;
        j["kernel"] = r.kernel;
        j["tuned"] = r.tuned;
        j["held_out"] = r.held_out;
        j["stale"] = r.stale;
        auto summary = [](const runtime::holdout_summary& s) {
            return nlohmann::ordered_json{
                {"n", s.n}, {"within_95", s.within_95}, {"median", s.median}, {"worst", s.worst}};
        };
        j["hone"] = summary(r.hone);
        j["nearest_volume"] = summary(r.volume);
        j["rows"] = nlohmann::ordered_json::array();
        for (const auto& row : r.rows)
            j["rows"].push_back({{"device", row.device},
                                 {"problem", row.problem},
                                 {"best", row.best_key},
                                 {"hone", row.hone_key},
                                 {"hone_tier", row.hone_tier},
                                 {"hone_from", row.hone_from},
                                 {"hone_fraction", row.hone_fraction},
                                 {"nearest_volume", row.volume_key},
                                 {"nearest_volume_from", row.volume_from},
                                 {"nearest_volume_fraction", row.volume_fraction}});
        // Devices, problems and keys come from the tuned files: invalid UTF-8 is replaced.
        std::cout << j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
                  << "\n";
    } else {
        print_text("{}", runtime::holdout_markdown(r));
    }
    return 0;
}

}  // namespace

void register_selection_quality(CLI::App& app, std::function<int()>& action) {
    auto a = std::make_shared<quality_args>();
    CLI::App* c = app.add_subcommand(
        "selection-quality",
        "How well hone::kernel chooses for sizes nobody tuned (hold-out on tuned sizes)");
    c->footer(
        R"(Takes the runs of CONFIG's kernel in the databases (or wisdom files), per device. Every other
tuned size is held out (for several sizes: those whose per-dimension ranks sum to an odd
number); for each held-out size, hone::kernel's rule chooses from the other sizes, and so does
"nearest volume" (the best configuration of the tuned size whose product of sizes is nearest).
Each choice is scored by the held-out size's own run: the optimum's time over the choice's time
(100% = the optimum; 0% = the choice failed there). Tune exhaustively for exact scores: a wisdom
file keeps only each size's best few. Prints a markdown table. Needs no GPU.

Examples:
  hone selection-quality configs/vector_add.yaml ladder.db
  hone selection-quality configs/sgemm.yaml sgemm_ladder.db --json)");
    c->add_option("config", a->config, "Search config (YAML)")
        ->required()
        ->check(CLI::ExistingFile);
    c->add_option("tuned", a->tuned, "Results databases or wisdom files")
        ->required()
        ->check(CLI::ExistingFile);
    c->add_option("--arch", a->arch,
                  "Device attributes for validity (default: the runs' architecture)");
    c->add_flag("--json", a->json, "Machine-readable output");
    c->callback([a, &action] { action = [a] { return run_quality(*a); }; });
}

}  // namespace hone::cli
