#include "runtime/holdout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "compile/compile.hpp"
#include "hone/device_attrs.hpp"
#include "runtime/select.hpp"

namespace hone::runtime {
namespace {

bool same_params(const std::vector<std::pair<std::string, value>>& a,
                 const std::vector<std::pair<std::string, value>>& b) {
    if (a.size() != b.size()) return false;
    for (const auto& p : a)
        if (std::find(b.begin(), b.end(), p) == b.end()) return false;
    return true;
}

// Optimum over chosen, objective-wise (1/rel); 0 when the chosen configuration is not ranked
// at that size (it failed there, or was not measured).
double fraction(const tuned_entry& held, const kernel_selection& sel) {
    for (const auto& c : held.configs)
        if (same_params(c.params, sel.params)) return 1.0 / c.rel;
    return 0;
}

holdout_summary summarize(std::vector<double> f) {
    holdout_summary s;
    s.n = f.size();
    if (f.empty()) return s;
    std::sort(f.begin(), f.end());
    for (double x : f) s.within_95 += x >= 0.95 - 1e-12 ? 1 : 0;
    s.worst = f.front();
    s.median = f.size() % 2 ? f[f.size() / 2] : (f[f.size() / 2 - 1] + f[f.size() / 2]) / 2;
    return s;
}

std::string percent(double f) {
    return fmt::format("{:.1f}%", 100 * f);
}

}  // namespace

holdout_report evaluate_holdout(const spec& s, const std::vector<tuned_entry>& entries,
                                const std::string& arch) {
    holdout_report rep;
    rep.kernel = s.kernel.name;
    const std::string hash = kernel_source_hash(s);
    // Per device, one entry per size (the newest).
    std::map<std::string, std::map<std::vector<int64_t>, const tuned_entry*>> by_device;
    for (const auto& e : entries) {
        if (e.kernel != s.kernel.name) continue;
        if (e.source_hash != hash) {
            ++rep.stale;
            continue;
        }
        const auto sizes = entry_sizes(s, e);
        if (!sizes) continue;
        const tuned_entry*& slot = by_device[e.device_name][*sizes];
        if (!slot || e.tuned_at > slot->tuned_at) slot = &e;
    }
    std::vector<double> hone_f, volume_f;
    for (const auto& [device, sizes] : by_device) {
        const std::string the_arch = arch.empty() ? sizes.begin()->second->arch : arch;
        std::optional<device_attrs> dev = nominal_device(the_arch);
        if (!dev)
            throw input_error(
                {"--arch", 0, 0},
                fmt::format("no device attributes known for {} (the runs' architecture): "
                            "give --arch with one of sm_70 ... sm_120",
                            the_arch));
        dev->name = device;
        // Ranks per dimension.
        const std::size_t dims = s.problem.size();
        std::vector<std::set<int64_t>> values(dims);
        for (const auto& [v, e] : sizes)
            for (std::size_t i = 0; i < dims; ++i) values[i].insert(v[i]);
        std::vector<tuned_entry> train;
        std::vector<const tuned_entry*> held;
        for (const auto& [v, e] : sizes) {
            std::size_t rank_sum = 0;
            for (std::size_t i = 0; i < dims; ++i)
                rank_sum += static_cast<std::size_t>(
                    std::distance(values[i].begin(), values[i].find(v[i])));
            if (rank_sum % 2)
                held.push_back(e);
            else
                train.push_back(*e);
        }
        rep.tuned += sizes.size();
        rep.held_out += held.size();
        const select_inputs in{s, train, hash, "", ""};
        for (const tuned_entry* h : held) {
            const std::vector<int64_t> q = *entry_sizes(s, *h);
            holdout_row row;
            row.device = device;
            row.problem = h->problem_text();
            const tuned_config& best = h->configs.front();
            row.best_value = best.objective;
            for (const auto& [name, v] : best.params)
                row.best_key +=
                    fmt::format("{}{}={}", row.best_key.empty() ? "" : ",", name, template_text(v));
            const kernel_selection sel = select_config(in, *dev, q);
            row.hone_key = sel.key;
            row.hone_tier = tier_name(sel.tier);
            for (const auto& [p, w] : sel.neighbours)
                row.hone_from +=
                    fmt::format("{}{} ({:.2f})", row.hone_from.empty() ? "" : "; ", p, w);
            row.hone_fraction = fraction(*h, sel);
            if (const auto vol = select_nearest_volume(in, *dev, q)) {
                row.volume_key = vol->key;
                row.volume_from = vol->entry.problem_text();
                row.volume_fraction = fraction(*h, *vol);
            }
            hone_f.push_back(row.hone_fraction);
            volume_f.push_back(row.volume_fraction);
            rep.rows.push_back(std::move(row));
        }
    }
    rep.hone = summarize(hone_f);
    rep.volume = summarize(volume_f);
    return rep;
}

std::string holdout_markdown(const holdout_report& r) {
    std::string out =
        fmt::format("### {}: {} held-out of {} tuned sizes{}\n\n", r.kernel, r.held_out, r.tuned,
                    r.stale ? fmt::format(" ({} stale runs skipped)", r.stale) : "");
    out +=
        "| rule | held-out sizes within 95% of their optimum | median | worst "
        "|\n|---|---|---|---|\n";
    auto line = [&](const char* name, const holdout_summary& s) {
        out += fmt::format(
            "| {} | {}/{} ({}) | {} | {} |\n", name, s.within_95, s.n,
            s.n ? percent(static_cast<double>(s.within_95) / static_cast<double>(s.n)) : "-",
            percent(s.median), percent(s.worst));
    };
    line("hone (interpolated relative time, valid at the size)", r.hone);
    line("nearest volume (its best valid configuration)", r.volume);
    out +=
        "\n| device | held-out size | its optimum | hone's choice | of the optimum | from | "
        "nearest volume's choice | of the optimum | from |\n";
    out += "|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& row : r.rows)
        out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", row.device,
                           row.problem, row.best_key, row.hone_key, percent(row.hone_fraction),
                           row.hone_from.empty() ? row.hone_tier : row.hone_from,
                           row.volume_key.empty() ? "-" : row.volume_key,
                           percent(row.volume_fraction), row.volume_from);
    return out;
}

}  // namespace hone::runtime
