#include "formats/stored_runs.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>

#include "hone/error.hpp"
#include "hone/store.hpp"
#include "record/run_labels.hpp"

namespace hone {

std::vector<run_records> read_stored_runs(const std::string& db, bool without_samples) {
    struct stat st {};
    if (::stat(db.c_str(), &st) != 0) throw input_error({db, 0, 0}, "no such results database");
    results_store store(db, store_access::read_only);
    std::vector<run_records> out;
    for (auto& sr : store.stored_runs()) {
        run_identity& id = sr.identity;
        store_query q;
        q.identity = id.id();
        q.stored_order = true;
        q.without_samples = without_samples;
        run_records run;
        run.run_id = sr.run_id;
        run.records = store.query(q);
        run.identity = std::move(id);
        out.push_back(std::move(run));
    }
    return out;
}

std::string describe_run(const run_records& run) {
    const run_identity& id = run.identity;
    std::string text = fmt::format("run {} ({}): {} on {}", run.run_id, id.id().substr(0, 12),
                                   kernel_label(id), device_label(id));
    if (!id.problem.empty()) text += fmt::format(" ({})", id.problem);
    text +=
        fmt::format(", {} configuration{}", run.records.size(), run.records.size() == 1 ? "" : "s");
    if (!id.origin.empty()) text += ", imported: " + id.origin;
    return text;
}

bool run_selected(int64_t run_id, const std::string& id, const std::string& selector,
                  bool by_number) {
    if (selector.empty()) return true;
    return by_number ? std::to_string(run_id) == selector : id.starts_with(selector);
}

bool selector_is_number(const std::string& selector, const std::vector<int64_t>& run_ids) {
    return std::any_of(run_ids.begin(), run_ids.end(),
                       [&](int64_t id) { return std::to_string(id) == selector; });
}

std::vector<run_records> select_runs(std::vector<run_records> runs, const std::string& selector,
                                     const std::string& db) {
    if (runs.empty()) throw input_error({db, 0, 0}, "holds no runs");
    std::vector<int64_t> ids;
    for (const auto& r : runs) ids.push_back(r.run_id);
    const bool by_number = selector_is_number(selector, ids);
    std::vector<run_records> out;
    for (auto& r : runs)
        if (run_selected(r.run_id, r.identity.id(), selector, by_number))
            out.push_back(std::move(r));
    if (!out.empty()) return out;
    std::string list;
    for (const auto& r : runs) list += "\n  " + describe_run(r);
    throw input_error({"--run", 0, 0},
                      runs.empty() ? fmt::format("{} holds no runs", db)
                                   : fmt::format("no run of {} is numbered '{}' or has an id "
                                                 "starting with it; its runs are:{}",
                                                 db, selector, list));
}

}  // namespace hone
