// Buffer initialisation: zeros (or {zeros: true}) | {constant: v} | {sequence: {start, step}} |
// {random: uniform, low, high, seed} | {random: normal, mean, stddev, seed} | {file: path}.
#include <fmt/format.h>

#include <algorithm>

#include "spec/loader.hpp"

namespace hone::spec_detail {
namespace {

const key_list kinds = {"zeros", "constant", "sequence", "random", "file"};

// The settings each kind accepts beside its own key.
std::vector<std::string> extras_of(const std::string& kind, const std::string& distribution) {
    if (kind != "random") return {};
    if (distribution == "uniform") return {"low", "high", "seed"};
    return {"mean", "stddev", "seed"};
}

double real_or(const std::vector<entry>& m, std::string_view key, double fallback, const doc& d) {
    const entry* e = find(m, key);
    return e ? read_real(d, e->value) : fallback;
}

void read_random(const doc& d, const YAML::Node& n, const std::vector<entry>& m,
                 const std::string& distribution, init_spec& init) {
    init.kind = distribution == "uniform" ? init_kind::random_uniform : init_kind::random_normal;
    init.a = real_or(m, distribution == "uniform" ? "low" : "mean", 0.0, d);
    init.b = real_or(m, distribution == "uniform" ? "high" : "stddev", 1.0, d);
    if (const entry* seed = find(m, "seed")) {
        const int64_t v = read_int(d, seed->value);
        if (v < 0) fail(d, seed->value, "expected a seed >= 0");
        init.seed = static_cast<uint64_t>(v);
    }
    if (distribution == "uniform" && init.a > init.b)
        fail(d, n, "random uniform needs low <= high");
    if (distribution == "normal" && init.b < 0) fail(d, n, "random normal needs stddev >= 0");
}

}  // namespace

init_spec read_init(const doc& d, const YAML::Node& n, const std::string& section) {
    // The one kind that needs no setting may be written as a plain word.
    if (n.IsScalar()) {
        if (read_string(d, n, "an init") != "zeros")
            fail(d, n,
                 fmt::format(
                     "{}: expected zeros or a map: {{constant: V}}, {{sequence: {{start, step}}}}, "
                     "{{random: uniform|normal, ...}}, {{file: path}}",
                     section));
        return init_spec{};
    }
    const auto m = read_map(d, n, section,
                            {"zeros", "constant", "sequence", "random", "file", "low", "high",
                             "mean", "stddev", "seed"});
    const entry* kind = nullptr;
    for (const auto& e : m) {
        if (std::find(kinds.begin(), kinds.end(), e.key) == kinds.end()) continue;
        if (kind)
            fail(d, e.key_node,
                 fmt::format("{}: '{}' and '{}' both given; expected one of zeros, constant, "
                             "sequence, random, file",
                             section, kind->key, e.key));
        kind = &e;
    }
    if (!kind)
        fail(d, n,
             fmt::format("{}: expected one of zeros, constant, sequence, random, file", section));
    const std::string distribution =
        kind->key == "random" ? read_choice(d, kind->value, {"uniform", "normal"}) : "";
    const std::vector<std::string> extras = extras_of(kind->key, distribution);
    for (const auto& e : m) {
        if (&e == kind || std::find(extras.begin(), extras.end(), e.key) != extras.end()) continue;
        fail(d, e.key_node,
             extras.empty() ? fmt::format("'{}' does not apply to {}", e.key, kind->key)
                            : fmt::format("'{}' does not apply to random {} (expected one of: {})",
                                          e.key, distribution, join(extras)));
    }
    init_spec init;
    if (kind->key == "zeros") {
        if (!read_bool(d, kind->value)) fail(d, kind->value, "expected {zeros: true}");
    } else if (kind->key == "constant") {
        init.kind = init_kind::constant;
        init.a = read_real(d, kind->value);
    } else if (kind->key == "sequence") {
        init.kind = init_kind::sequence;
        const auto seq = read_map(d, kind->value, section + ".sequence", {"start", "step"});
        init.a = real_or(seq, "start", 0.0, d);
        init.b = real_or(seq, "step", 1.0, d);
    } else if (kind->key == "random") {
        read_random(d, n, m, distribution, init);
    } else {
        init.kind = init_kind::file;
        init.path =
            require_file(d, kind->value, read_string(d, kind->value, "a file path"), "init file");
    }
    return init;
}

}  // namespace hone::spec_detail
