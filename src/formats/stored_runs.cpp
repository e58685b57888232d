#include "formats/stored_runs.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include "hone/error.hpp"
#include "hone/store.hpp"

namespace hone {

std::vector<run_records> read_stored_runs(const std::string& db, bool without_samples) {
    struct stat st {};
    if (::stat(db.c_str(), &st) != 0)
        throw env_error(fmt::format("{}: no such results database", db));
    results_store store(db);
    std::vector<run_records> out;
    for (auto& id : store.runs()) {
        store_query q;
        q.identity = id.id();
        q.stored_order = true;
        q.without_samples = without_samples;
        run_records run;
        run.records = store.query(q);
        run.identity = std::move(id);
        out.push_back(std::move(run));
    }
    return out;
}

std::string describe_run(const run_records& run) {
    const run_identity& id = run.identity;
    std::string text = fmt::format("{}  {} on {}", id.id().substr(0, 12),
                                   id.kernel_name.empty() ? "(unnamed kernel)" : id.kernel_name,
                                   id.device_name.empty() ? "an unnamed device" : id.device_name);
    if (!id.problem.empty()) text += fmt::format(" ({})", id.problem);
    text +=
        fmt::format(", {} configuration{}", run.records.size(), run.records.size() == 1 ? "" : "s");
    if (!id.origin.empty()) text += ", imported: " + id.origin;
    return text;
}

std::vector<run_records> select_runs(std::vector<run_records> runs, const std::string& prefix,
                                     const std::string& db) {
    std::vector<run_records> out;
    for (auto& r : runs)
        if (r.identity.id().starts_with(prefix)) out.push_back(std::move(r));
    if (!out.empty()) return out;
    std::string list;
    for (const auto& r : runs) list += "\n  " + describe_run(r);
    throw input_error({"--run", 0, 0},
                      runs.empty() ? fmt::format("{} holds no runs", db)
                                   : fmt::format("no run of {} has an id starting with '{}'; its "
                                                 "runs are:{}",
                                                 db, prefix, list));
}

}  // namespace hone
