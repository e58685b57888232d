// hone report: one self-contained HTML page of one or more stored runs.
#include <fmt/format.h>

#include <filesystem>

#include "cli/commands_internal.hpp"
#include "cli/options.hpp"
#include "formats/output_file.hpp"
#include "formats/stored_runs.hpp"
#include "hone/store.hpp"
#include "report/html_report.hpp"

namespace hone::cli {
namespace {

struct report_args {
    std::vector<std::string> dbs;
    std::string output, run;
    std::size_t top = 10;
};

int run_report(const report_args& a) {
    std::string out = a.output;
    if (out.empty())
        out = std::filesystem::path(a.dbs.front()).replace_extension(".html").filename().string();
    check_output_path(out, a.dbs);
    std::vector<report_run> runs;
    for (const auto& db : a.dbs) {
        for (auto& r : select_runs(read_stored_runs(db, true), a.run, db)) {
            std::string final_word =
                results_store(db, store_access::read_only).final_word(r.identity.id());
            runs.push_back(
                {std::move(r.identity), std::move(r.records), db, std::move(final_word)});
        }
    }
    html_options opt;
    opt.top = a.top;
    write_file_atomically(out, html_report(runs, opt));
    std::size_t configs = 0;
    for (const auto& r : runs) configs += r.records.size();
    fmt::print("wrote {} ({} run{}, {} configurations)\n", out, runs.size(),
               runs.size() == 1 ? "" : "s", configs);
    return 0;
}

}  // namespace

void register_report(CLI::App& app, std::function<int()>& action) {
    auto a = std::make_shared<report_args>();
    CLI::App* c =
        app.add_subcommand("report", "Write an HTML report of stored runs (tables and charts)");
    c->footer(
        R"txt(One self-contained HTML file: inline CSS and SVG charts drawn by hone, no script, nothing
fetched from the network; open it in any browser, mail it, keep it with the results. Every run
of every database given is reported, side by side (choose with --run):
  - the runs: kernel, device, problem, who measured them (hone, or the imported file), best;
  - the best configurations, with their 95% confidence intervals and ties;
  - the objective against each parameter: every configuration a dot, a box per value;
  - comparison matrices: for each pair of a parameter's values, the median ratio over
    configurations that differ only in that parameter (e.g. float vs float4), as a heat map;
  - parameter sensitivity: the share of the variance of log(objective) each one explains;
  - where the time went (compile, module load, verification, warm-up, samples);
  - search progress: the best so far against evaluations, beside random search's exact
    expectation over the same configurations;
  - failures by status, with their messages.

Examples:
  hone report configs/vector_add.db                       writes vector_add.html here
  hone report a100.db h100.db -o compare.html              two GPUs side by side
  hone import gemm_RTX_2080_Ti.json.gz -o gemm.db && hone report gemm.db)txt");
    c->add_option("db", a->dbs, "Results databases")->required();
    c->add_option("-o,--output", a->output,
                  "HTML file (default: the first database's name with .html, here)");
    c->add_option("--run", a->run, "Only runs whose id starts with this");
    c->add_option("--top", a->top, "Rows of each best table (default 10; 0 = all)")
        ->check(whole_number(0, std::numeric_limits<int64_t>::max()));
    c->callback([a, &action] { action = [a] { return run_report(*a); }; });
}

}  // namespace hone::cli
