// Selection tiers: exact, nearest, architecture, fallback. The nearest rule interpolates each
// configuration's relative time (its time over the best time at that size) between the tuned
// sizes around the requested one, in log2 space, and takes the configuration with the lowest
// interpolated value among those valid at the requested sizes.
#include "runtime/select.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include "hone/tuner.hpp"
#include "space/space.hpp"

namespace hone::runtime {
namespace {

using param_pairs = std::vector<std::pair<std::string, value>>;

// A configuration's identity across sizes: its key as read (config_key), or computed.
std::string key_of(const tuned_config& c) {
    return c.key.empty() ? config_key(c.params) : c.key;
}

double log2_size(int64_t v) {
    return std::log2(static_cast<double>(std::max<int64_t>(v, 1)));
}

struct point {
    const tuned_entry* e;
    std::vector<int64_t> sizes;
    std::vector<double> at;  // log2 of the sizes
};

// One entry per distinct size: of duplicates (several runs of one size), the one tuned with
// this NVRTC, then the newest.
std::vector<point> distinct_points(const spec& s, const std::vector<const tuned_entry*>& entries,
                                   const std::string& nvrtc) {
    std::map<std::vector<int64_t>, const tuned_entry*> best;
    auto better = [&](const tuned_entry* a, const tuned_entry* b) {
        const bool an = a->nvrtc_version == nvrtc, bn = b->nvrtc_version == nvrtc;
        if (an != bn) return an;
        return a->tuned_at > b->tuned_at;
    };
    for (const tuned_entry* e : entries) {
        const auto sizes = entry_sizes(s, *e);
        if (!sizes) continue;
        auto [it, fresh] = best.emplace(*sizes, e);
        if (!fresh && better(e, it->second)) it->second = e;
    }
    std::vector<point> out;
    for (const auto& [sizes, e] : best) {
        point p{e, sizes, {}};
        for (int64_t v : sizes) p.at.push_back(log2_size(v));
        out.push_back(std::move(p));
    }
    return out;
}

double euclidean_distance(const std::vector<double>& a, const std::vector<double>& b) {
    double d = 0;
    for (std::size_t i = 0; i < a.size(); ++i) d += (a[i] - b[i]) * (a[i] - b[i]);
    return std::sqrt(d);
}

// The nearest points in each orthant around q (a point on an axis plane counts on both sides;
// points equally near all count): the tuned sizes that bracket q in every dimension, so that q
// is interpolated, not extrapolated, where the tuned sizes allow it.
std::vector<const point*> neighbours_of(const std::vector<point>& pts,
                                        const std::vector<double>& q) {
    std::vector<const point*> out;
    const std::size_t dims = q.size();
    if (dims > 10) {  // 2^dims orthants: beyond 10 sizes keep the 2 * dims nearest points
        std::vector<const point*> all;
        for (const auto& p : pts) all.push_back(&p);
        std::sort(all.begin(), all.end(), [&](const point* a, const point* b) {
            return euclidean_distance(a->at, q) < euclidean_distance(b->at, q);
        });
        all.resize(std::min(all.size(), 2 * dims));
        return all;
    }
    auto inside = [&](const point& p, uint64_t orthant) {
        for (std::size_t i = 0; i < dims; ++i) {
            const double diff = p.at[i] - q[i];
            const bool upper = (orthant >> i) & 1;
            if (!(diff == 0 || (upper ? diff > 0 : diff < 0))) return false;
        }
        return true;
    };
    for (uint64_t orthant = 0; orthant < (uint64_t{1} << dims); ++orthant) {
        double nearest = std::numeric_limits<double>::infinity();
        for (const auto& p : pts)
            if (inside(p, orthant)) nearest = std::min(nearest, euclidean_distance(p.at, q));
        for (const auto& p : pts) {
            if (!inside(p, orthant) || euclidean_distance(p.at, q) > nearest * (1 + 1e-9)) continue;
            if (std::find(out.begin(), out.end(), &p) == out.end()) out.push_back(&p);
        }
    }
    return out;
}

struct validity_cache {
    const spec& s;
    const bindings& scope;
    std::map<std::string, std::optional<std::vector<value>>> seen;
    std::map<std::string, std::string> why;
    const std::optional<std::vector<value>>& check(const std::string& key,
                                                   const param_pairs& params) {
        auto it = seen.find(key);
        if (it != seen.end()) return it->second;
        std::string reason;
        auto values = valid_config(s, scope, params, &reason);
        if (!values) why[key] = reason;
        return seen.emplace(key, std::move(values)).first->second;
    }
};

void fill_from(kernel_selection& sel, const spec& s, const tuned_entry& e,
               const std::vector<value>& values) {
    sel.from_tuned = true;
    // The entry's identity, not its (possibly hundreds of) configurations.
    tuned_entry& id = sel.entry;
    id.kernel = e.kernel;
    id.config = e.config;
    id.source_hash = e.source_hash;
    id.spec_hash = e.spec_hash;
    id.device_name = e.device_name;
    id.device_uuid = e.device_uuid;
    id.arch = e.arch;
    id.driver_version = e.driver_version;
    id.nvrtc_version = e.nvrtc_version;
    id.tool_version = e.tool_version;
    id.origin = e.origin;
    id.problem = e.problem;
    id.objective = e.objective;
    id.tuned_at = e.tuned_at;
    id.ranked = e.ranked;
    id.configs.clear();
    config c{values};
    sel.key = c.key(s);
    sel.params.clear();
    for (std::size_t i = 0; i < s.params.size(); ++i)
        sel.params.emplace_back(s.params[i].name, values[i]);
    sel.tuned_rank = 0;
    sel.tuned_time_us = 0;
}

// Rank and time of the configuration `key` in entry e (0: not listed).
void locate(kernel_selection& sel, const tuned_entry& e, const std::string& key) {
    for (std::size_t r = 0; r < e.configs.size(); ++r) {
        if (key_of(e.configs[r]) != key) continue;
        sel.tuned_rank = r + 1;
        sel.tuned_time_us = e.configs[r].time_us;
        return;
    }
}

// The best valid configuration of one entry, ranks in order.
bool pick_exact(kernel_selection& sel, const spec& s, const point& p, validity_cache& valid) {
    const tuned_entry& e = *p.e;
    for (std::size_t r = 0; r < e.configs.size(); ++r) {
        const std::string key = key_of(e.configs[r]);
        const auto& values = valid.check(key, e.configs[r].params);
        if (!values) continue;
        fill_from(sel, s, e, *values);
        sel.tuned_rank = r + 1;
        sel.tuned_time_us = e.configs[r].time_us;
        sel.predicted_rel = e.configs[r].rel;
        if (r > 0)
            sel.notes.push_back(
                fmt::format("the {} tuned configuration{} not valid now ({}): "
                            "used rank {}",
                            r == 1 ? "best" : fmt::format("{} best", r), r == 1 ? " is" : "s are",
                            valid.why[key_of(e.configs[0])], r + 1));
        return true;
    }
    if (!e.configs.empty())
        sel.notes.push_back(fmt::format(
            "none of the {} configurations tuned at {} on {} is valid "
            "now (the first: {})",
            e.configs.size(), e.problem_text(), e.device_name, valid.why[key_of(e.configs[0])]));
    return false;
}

// The nearest rule over `pts` (one device or one family), at q (not a tuned size, or one whose
// configurations are all invalid now).
bool pick_nearest(kernel_selection& sel, const spec& s, const std::vector<point>& pts,
                  const std::vector<int64_t>& sizes, validity_cache& valid) {
    std::vector<double> q;
    for (int64_t v : sizes) q.push_back(log2_size(v));
    std::vector<const point*> near = neighbours_of(pts, q);
    if (near.empty()) return false;
    // Weights 1/d: in one dimension, linear interpolation in log2(size) between the two
    // bracketing sizes; outside the tuned range, the nearest size alone.
    std::vector<double> w;
    for (const point* p : near) {
        const double d = euclidean_distance(p->at, q);
        w.push_back(d > 1e-12 ? 1.0 / d : 1e12);
    }
    double total = 0;
    for (double x : w) total += x;
    for (double& x : w) x /= total;

    struct candidate {
        const param_pairs* params = nullptr;
        double score = 0;
        int present = 0;
        std::size_t nearest_rank = std::numeric_limits<std::size_t>::max();
    };
    std::map<std::string, candidate> cands;
    for (const point* p : near)
        for (const auto& c : p->e->configs) cands.try_emplace(key_of(c), candidate{&c.params});
    const auto nearest_i =
        static_cast<std::size_t>(std::max_element(w.begin(), w.end()) - w.begin());
    // Per neighbour: each configuration's relative time; a configuration it does not list
    // (failed there, invalid at that size, or beyond a wisdom file's top few) counts as its
    // worst listed one.
    for (std::size_t n = 0; n < near.size(); ++n) {
        const tuned_entry& e = *near[n]->e;
        std::unordered_map<std::string, std::pair<double, std::size_t>> rel;
        double worst = 1;
        for (std::size_t r = 0; r < e.configs.size(); ++r) {
            rel[key_of(e.configs[r])] = {e.configs[r].rel, r};
            worst = std::max(worst, e.configs[r].rel);
        }
        for (auto& [key, c] : cands) {
            const auto it = rel.find(key);
            if (it == rel.end()) {
                c.score += w[n] * worst;
                continue;
            }
            c.score += w[n] * it->second.first;
            ++c.present;
            if (n == nearest_i) c.nearest_rank = it->second.second;
        }
    }
    // Best first; validity is checked in that order, so that the common case evaluates the
    // spec's expressions for one configuration, not for every one listed.
    std::vector<std::pair<const std::string*, const candidate*>> order;
    for (const auto& [key, c] : cands) order.emplace_back(&key, &c);
    std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) {
        const candidate& a = *x.second;
        const candidate& b = *y.second;
        if (std::abs(a.score - b.score) > 1e-12) return a.score < b.score;
        if (a.present != b.present) return a.present > b.present;
        return a.nearest_rank < b.nearest_rank;
    });
    const candidate* best = nullptr;
    std::string best_key, first_why;
    std::size_t skipped = 0;
    for (const auto& [key, c] : order) {
        if (valid.check(*key, *c->params)) {
            best = c;
            best_key = *key;
            break;
        }
        if (skipped++ == 0) first_why = fmt::format("{}: {}", *key, valid.why[*key]);
    }
    if (!best) {
        sel.notes.push_back(
            fmt::format("none of the {} configurations tuned at the nearest sizes "
                        "is valid at {} ({})",
                        cands.size(), problem_text(s, sizes), first_why));
        return false;
    }
    const tuned_entry& nearest = *near[nearest_i]->e;
    fill_from(sel, s, nearest, *valid.check(best_key, *best->params));
    locate(sel, nearest, best_key);
    sel.predicted_rel = best->score;
    sel.neighbours.clear();
    for (std::size_t n = 0; n < near.size(); ++n)
        sel.neighbours.emplace_back(near[n]->e->problem_text(), w[n]);
    if (skipped > 0)
        sel.notes.push_back(
            fmt::format("{} configuration{} with a lower interpolated time {} not "
                        "valid at {} ({})",
                        skipped, skipped == 1 ? "" : "s", skipped == 1 ? "is" : "are",
                        problem_text(s, sizes), first_why));
    return true;
}

bool same_sizes(const point& p, const std::vector<int64_t>& sizes) {
    return p.sizes == sizes;
}

}  // namespace

std::optional<std::vector<int64_t>> entry_sizes(const spec& s, const tuned_entry& e) {
    if (e.problem.size() != s.problem.size()) return std::nullopt;
    std::vector<int64_t> out;
    for (const auto& p : s.problem) {
        const auto it = std::find_if(e.problem.begin(), e.problem.end(),
                                     [&](const auto& q) { return q.first == p.name; });
        if (it == e.problem.end()) return std::nullopt;
        out.push_back(it->second);
    }
    return out;
}

kernel_selection select_config(const select_inputs& in, const device_attrs& dev,
                               const std::vector<int64_t>& sizes) {
    const spec& s = in.s;
    kernel_selection sel;
    sel.problem = problem_text(s, sizes);
    sel.device = dev.name;
    const bindings scope = size_scope(s, sizes, dev);
    validity_cache valid{s, scope, {}, {}};

    std::vector<const tuned_entry*> same, family;
    std::vector<std::string> stale;
    std::size_t other_sizes = 0;
    const std::string fam = name_family(dev.name);
    for (const auto& e : in.entries) {
        if (e.source_hash != in.source_hash) {
            stale.push_back(fmt::format("{} {}", e.device_name, e.problem_text()));
            continue;
        }
        if (!entry_sizes(s, e)) {
            ++other_sizes;
            continue;
        }
        if (e.device_name == dev.name)
            same.push_back(&e);
        else if (e.arch == dev.arch() && name_family(e.device_name) == fam)
            family.push_back(&e);
    }
    if (!stale.empty()) {
        const std::size_t shown = std::min<std::size_t>(stale.size(), 3);
        sel.notes.push_back(
            fmt::format("{} stale entr{} skipped: the kernel source or its headers "
                        "changed since tuning ({}{})",
                        stale.size(), stale.size() == 1 ? "y" : "ies",
                        fmt::join(stale.begin(), stale.begin() + static_cast<long>(shown), "; "),
                        stale.size() > shown ? "; ..." : ""));
    }
    if (other_sizes > 0)
        sel.notes.push_back(fmt::format("{} entr{} other problem sizes than the spec: skipped",
                                        other_sizes, other_sizes == 1 ? "y names" : "ies name"));

    auto finish = [&](selection_tier t) {
        sel.tier = t;
        sel.kernel = s.kernel.name;
        sel.problem = problem_text(s, sizes);
        sel.device = dev.name;
        if (sel.from_tuned && !in.spec_hash.empty() && sel.entry.spec_hash != in.spec_hash)
            sel.notes.push_back(
                "tuned under another spec hash: the options, buffers or their inputs, "
                "arguments, launch or verification differ");
        return sel;
    };
    auto try_tier = [&](const std::vector<const tuned_entry*>& entries) {
        const std::vector<point> pts = distinct_points(s, entries, in.nvrtc_version);
        for (const auto& p : pts)
            if (same_sizes(p, sizes) && pick_exact(sel, s, p, valid)) return 1;  // exact
        std::vector<point> others;
        for (const auto& p : pts)
            if (!same_sizes(p, sizes)) others.push_back(p);
        if (!others.empty() && pick_nearest(sel, s, others, sizes, valid)) return 2;  // nearest
        return 0;
    };
    if (const int got = try_tier(same))
        return finish(got == 1 ? selection_tier::exact : selection_tier::nearest);
    if (try_tier(family)) return finish(selection_tier::architecture);

    std::vector<std::string> notes = std::move(sel.notes);
    kernel_selection fb = fallback_config(s, dev, sizes);
    notes.insert(notes.end(), fb.notes.begin(), fb.notes.end());
    if (same.empty() && family.empty())
        notes.insert(notes.begin(), in.entries.empty()
                                        ? "no tuned entries for this kernel"
                                        : fmt::format("no usable tuned entry for {} (or its family "
                                                      "{} on {})",
                                                      dev.name, fam, dev.arch()));
    fb.notes = std::move(notes);
    return fb;
}

std::optional<kernel_selection> select_nearest_volume(const select_inputs& in,
                                                      const device_attrs& dev,
                                                      const std::vector<int64_t>& sizes) {
    const spec& s = in.s;
    std::vector<const tuned_entry*> same;
    for (const auto& e : in.entries)
        if (e.source_hash == in.source_hash && e.device_name == dev.name) same.push_back(&e);
    const std::vector<point> pts = distinct_points(s, same, in.nvrtc_version);
    double q = 0;
    for (int64_t v : sizes) q += log2_size(v);
    std::vector<const point*> order;
    for (const auto& p : pts) order.push_back(&p);
    auto volume = [](const point* p) {
        double v = 0;
        for (double x : p->at) v += x;
        return v;
    };
    std::stable_sort(order.begin(), order.end(), [&](const point* a, const point* b) {
        return std::abs(volume(a) - q) < std::abs(volume(b) - q);
    });
    const bindings scope = size_scope(s, sizes, dev);
    validity_cache valid{s, scope, {}, {}};
    for (const point* p : order) {
        kernel_selection sel;
        if (!pick_exact(sel, s, *p, valid)) continue;
        sel.tier = selection_tier::nearest;
        sel.kernel = s.kernel.name;
        sel.problem = problem_text(s, sizes);
        sel.device = dev.name;
        return sel;
    }
    return std::nullopt;
}

}  // namespace hone::runtime
