// hone import: results measured by another tool (or exported by hone) into a database, as a
// run of their own.
#include <fmt/format.h>

#include <filesystem>

#include "cli/commands_internal.hpp"
#include "formats/import.hpp"
#include "formats/output_file.hpp"
#include "hone/store.hpp"
#include "record/run_labels.hpp"
#include "report/report.hpp"

namespace hone::cli {
namespace {

struct import_args {
    std::string file, db, format = "auto";
};

int run_import(const import_args& a) {
    const import_format f = a.format == "t4"         ? import_format::t4
                            : a.format == "kt-cache" ? import_format::kt_cache
                                                     : import_format::automatic;
    check_output_path(a.db, {a.file}, true);
    // Everything is read and checked before the database is touched; the records are made
    // again one at a time as they are stored.
    const checked_import run = check_import(a.file, f);
    results_store store(a.db);
    const std::string id = run.identity.id();
    const std::size_t before = store.done(id).size();
    // The run's identity names the file by its name only; one of the same name from another
    // folder is another file, whose import must not replace this one's.
    if (before > 0)
        for (const auto& old : store.stored_runs()) {
            const std::string& was = old.identity.config_path;
            if (old.identity.id() != id || !std::filesystem::path(was).is_absolute() ||
                was == run.identity.config_path)
                continue;
            throw input_error({a.file, 0, 0},
                              fmt::format("{} holds a run imported from {}, another file of the "
                                          "same name: importing this one would replace it; "
                                          "import it into another database, or give it another "
                                          "name (nothing was written)",
                                          a.db, was));
        }
    store.put_run(run.identity,
                  [&](const results_store::record_sink& put) { run.each_record(put); });
    const run_identity& r = run.identity;
    print_text("imported {}: {}\n", a.file, status_summary(run.records, run.by_status));
    print_text("  {} on {}{}\n", kernel_label(r), device_label(r),
               r.problem.empty() ? "" : fmt::format(", problem {}", r.problem));
    print_text("  into {} as run {} (origin: {}){}\n", a.db, id.substr(0, 12), r.origin,
               before > 0 ? fmt::format("; it replaces the {} configurations imported before "
                                        "from the same file",
                                        before)
                          : "");
    for (const auto& note : run.notes) print_text("  note: {}\n", note);
    return 0;
}

}  // namespace

void register_import(CLI::App& app, std::function<int()>& action) {
    auto a = std::make_shared<import_args>();
    CLI::App* c = app.add_subcommand(
        "import", "Read T4 results or a Kernel Tuner cache (.json, .json.gz) into a database");
    c->footer(
        R"txt(The file is read and checked whole before anything is written; then its records are stored
in one transaction as a run of their own. The run's origin names the tool and the file
("kernel_tuner cache (gemm.json.gz)"), and it is part of the run's identity: `hone show` lists
the run apart, and `hone tune` never resumes from it or mixes it with what it measures.
Importing the same file again replaces what it imported before.

What is kept: parameters; statuses (Kernel Tuner's CompilationFailedConfig -> compile_error,
RuntimeFailedConfig -> runtime_fault, InvalidConfig -> device_limits; T4's compile, runtime,
timeout, correctness, constraints likewise); every raw time (its median and 95% CI are what
hone ranks by); compile, verification and benchmark times; every numeric metric (GFLOP/s,
...), and the file's own objective value as the metric "time" (ms). T4's metadata.timeunit may
be seconds, milliseconds (also spelled "miliseconds", as the FAIR benchmark hub's files have
it), microseconds or nanoseconds, singular or plural, in any case.

Refused with exit code 2, nothing written: another format or version, a damaged or truncated
gzip, a T4 result without configuration, times, invalidity or correctness, a cache record with
a parameter the header does not list or a time string other than the three failure kinds.

Examples:
  hone import gemm_RTX_2080_Ti.json.gz -o gemm.db
  hone import results.t4.json -o imported.db && hone report imported.db)txt");
    c->add_option("file", a->file, "T4 results or Kernel Tuner cache (.json or .json.gz)")
        ->required();
    c->add_option("-o,--output", a->db, "Results database to add the run to (created if absent)")
        ->required();
    c->add_option("--format", a->format, "auto (default: from the content) | t4 | kt-cache")
        ->check(CLI::IsMember({"auto", "t4", "kt-cache"}));
    c->callback([a, &action] { action = [a] { return run_import(*a); }; });
}

}  // namespace hone::cli
