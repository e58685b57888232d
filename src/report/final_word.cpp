#include "report/final_word.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "hone/error.hpp"

namespace hone {
namespace {

using json = nlohmann::ordered_json;

json summary_json(const summary& s) {
    return {{"n", s.n},           {"median", s.median},   {"mean", s.mean},
            {"stddev", s.stddev}, {"min", s.min},         {"max", s.max},
            {"ci_low", s.ci_low}, {"ci_high", s.ci_high}, {"mean_ci_half", s.mean_ci_half}};
}

summary summary_from(const json& j) {
    summary s;
    s.n = j.value("n", std::size_t{0});
    s.median = j.value("median", 0.0);
    s.mean = j.value("mean", 0.0);
    s.stddev = j.value("stddev", 0.0);
    s.min = j.value("min", 0.0);
    s.max = j.value("max", 0.0);
    s.ci_low = j.value("ci_low", 0.0);
    s.ci_high = j.value("ci_high", 0.0);
    s.mean_ci_half = j.value("mean_ci_half", 0.0);
    return s;
}

// The q-quantile of sorted values, interpolated between neighbours.
double quantile(const std::vector<double>& v, double q) {
    const double at = q * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(at));
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (at - static_cast<double>(lo));
}

}  // namespace

std::vector<const eval_record*> finalists(const std::vector<eval_record>& records, rank_by by) {
    std::vector<const eval_record*> order = ranked(records, by);
    std::vector<const eval_record*> out;
    for (const eval_record* r : order) {
        if (!objective_score(*r, by)) break;  // no metric: never a winner
        const bool tie = out.empty() || overlaps(out.front()->gpu.time_us, r->gpu.time_us);
        if (out.size() >= final_max || (!tie && out.size() >= final_min)) break;
        out.push_back(r);
    }
    return out;
}

std::string final_word::winner() const {
    return !entries.empty() && has_timing(entries.front().st) ? entries.front().key : "";
}

void decide(final_word& w) {
    auto score = [](const final_entry& e) {
        return has_timing(e.st) && e.objective != 0 ? e.objective
                                                    : std::numeric_limits<double>::infinity();
    };
    std::stable_sort(w.entries.begin(), w.entries.end(),
                     [&](const final_entry& a, const final_entry& b) {
                         const double sa = score(a), sb = score(b);
                         return sa != sb ? sa < sb : a.key < b.key;
                     });
    for (std::size_t i = 0; i < w.entries.size(); ++i) {
        final_entry& e = w.entries[i];
        e.tie = i > 0 && has_timing(e.st) && has_timing(w.entries[0].st) &&
                overlaps(w.entries[0].time_us, e.time_us);
    }
}

gpu_agreement summarize_agreement(std::vector<double> ratios) {
    gpu_agreement a;
    std::erase_if(ratios, [](double r) { return !(r > 0) || !std::isfinite(r); });
    if (ratios.empty()) return a;
    std::sort(ratios.begin(), ratios.end());
    a.pairs = ratios.size();
    a.median_ratio = quantile(ratios, 0.5);
    a.p10 = quantile(ratios, 0.1);
    a.p90 = quantile(ratios, 0.9);
    a.min = ratios.front();
    a.max = ratios.back();
    return a;
}

std::string to_json_text(const final_word& w) {
    json entries = json::array();
    for (const auto& e : w.entries) {
        json others = json::array();
        for (const auto& o : e.others)
            others.push_back(
                {{"device", o.device}, {"device_uuid", o.device_uuid}, {"median_us", o.median_us}});
        entries.push_back({{"key", e.key},
                           {"status", status_name(e.st)},
                           {"time_us", summary_json(e.time_us)},
                           {"objective", e.objective},
                           {"search_median_us", e.search_median_us},
                           {"tie", e.tie},
                           {"telemetry",
                            {{"sm_clock_mhz", e.telemetry.sm_clock_mhz},
                             {"temperature_c", e.telemetry.temperature_c},
                             {"power_w", e.telemetry.power_w}}},
                           {"others", std::move(others)}});
    }
    const gpu_agreement& a = w.agreement;
    const json j = {{"device", w.device},
                    {"device_uuid", w.device_uuid},
                    {"devices", w.devices},
                    {"rounds", w.rounds},
                    {"winner", w.winner()},
                    {"entries", std::move(entries)},
                    {"agreement",
                     {{"pairs", a.pairs},
                      {"median_ratio", a.median_ratio},
                      {"p10", a.p10},
                      {"p90", a.p90},
                      {"min", a.min},
                      {"max", a.max}}}};
    return j.dump();
}

std::optional<final_word> final_word_from_json(const std::string& text) {
    if (text.empty()) return std::nullopt;
    try {
        const json j = json::parse(text);
        final_word w;
        w.device = j.at("device").get<int>();
        w.device_uuid = j.value("device_uuid", "");
        w.devices = j.value("devices", std::vector<int>{});
        w.rounds = j.value("rounds", final_rounds);
        for (const auto& e : j.at("entries")) {
            final_entry x;
            x.key = e.at("key").get<std::string>();
            const auto st = parse_status(e.value("status", "ok"));
            if (!st) throw env_error("unknown status " + e.value("status", ""));
            x.st = *st;
            x.time_us = summary_from(e.value("time_us", json::object()));
            x.objective = e.value("objective", 0.0);
            x.search_median_us = e.value("search_median_us", 0.0);
            x.tie = e.value("tie", false);
            const json t = e.value("telemetry", json::object());
            x.telemetry.sm_clock_mhz = t.value("sm_clock_mhz", -1.0);
            x.telemetry.temperature_c = t.value("temperature_c", -1.0);
            x.telemetry.power_w = t.value("power_w", -1.0);
            for (const auto& o : e.value("others", json::array()))
                x.others.push_back(
                    {o.value("device", -1), o.value("device_uuid", ""), o.value("median_us", 0.0)});
            w.entries.push_back(std::move(x));
        }
        const json a = j.value("agreement", json::object());
        w.agreement.pairs = a.value("pairs", std::size_t{0});
        w.agreement.median_ratio = a.value("median_ratio", 0.0);
        w.agreement.p10 = a.value("p10", 0.0);
        w.agreement.p90 = a.value("p90", 0.0);
        w.agreement.min = a.value("min", 0.0);
        w.agreement.max = a.value("max", 0.0);
        return w;
    } catch (const nlohmann::json::exception& e) {
        throw env_error(fmt::format("the stored final word does not decode: {}", e.what()));
    }
}

std::string final_word_text(const final_word& w) {
    std::string out = fmt::format(
        "final word: the {} best measured again on GPU {} ({} interleaved rounds; GPUs of the "
        "run: {})\n",
        w.entries.size(), w.device, w.rounds, fmt::join(w.devices, ", "));
    if (w.winner().empty()) return out + "  no finalist was timed on the reference GPU\n";
    for (std::size_t i = 0; i < w.entries.size(); ++i) {
        const final_entry& e = w.entries[i];
        std::string others;
        for (const auto& o : e.others)
            if (o.median_us > 0) others += fmt::format(" GPU{} {:.3f}", o.device, o.median_us);
        std::string tele;
        if (e.telemetry.sm_clock_mhz > 0)
            tele = fmt::format("  [{:.0f} MHz, {:.0f} C, {:.0f} W]", e.telemetry.sm_clock_mhz,
                               e.telemetry.temperature_c, e.telemetry.power_w);
        out +=
            has_timing(e.st)
                ? fmt::format(
                      "  {:>2} {:<8} {:.3f} us [{:.3f}, {:.3f}] (search: {:.3f}){}{}  {}\n", i + 1,
                      i == 0  ? "winner"
                      : e.tie ? "tie"
                              : "",
                      e.time_us.median, e.time_us.ci_low, e.time_us.ci_high, e.search_median_us,
                      others.empty() ? "" : "; other GPUs:" + others, tele, e.key)
                : fmt::format("  {:>2} {:<8} {}  {}\n", i + 1, "", status_name(e.st), e.key);
    }
    const gpu_agreement& a = w.agreement;
    if (a.pairs > 0)
        out += fmt::format(
            "  GPU to GPU, same configuration (other GPU / GPU {}): median ratio {:.4f}, 10-90% "
            "{:.4f}-{:.4f}, range {:.4f}-{:.4f} ({} pairs)\n",
            w.device, a.median_ratio, a.p10, a.p90, a.min, a.max, a.pairs);
    return out;
}

}  // namespace hone
