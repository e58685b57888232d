// What "valid at these sizes" means, and the default tier: the pieces of selection that need
// no tuned results.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "hone/tuner.hpp"
#include "runtime/select.hpp"
#include "space/space.hpp"
#include "tune/internal.hpp"

namespace hone::runtime {
namespace {

using param_pairs = std::vector<std::pair<std::string, value>>;

}  // namespace

bindings size_scope(const spec& s, const std::vector<int64_t>& sizes, const device_attrs& dev) {
    bindings b;
    for (std::size_t i = 0; i < s.problem.size() && i < sizes.size(); ++i)
        b[s.problem[i].name] = sizes[i];
    dev.add_to(b);
    return b;
}

std::string problem_text(const spec& s, const std::vector<int64_t>& sizes) {
    std::string out;
    for (std::size_t i = 0; i < s.problem.size() && i < sizes.size(); ++i)
        out += fmt::format("{}{}={}", i ? "," : "", s.problem[i].name, sizes[i]);
    return out;
}

std::optional<std::vector<value>> valid_config(const spec& s, const bindings& scope,
                                               const param_pairs& params, std::string* why) {
    auto fail = [&](std::string text) -> std::optional<std::vector<value>> {
        if (why) *why = std::move(text);
        return std::nullopt;
    };
    if (params.size() != s.params.size())
        return fail(
            fmt::format("it has {} parameters, the spec {}", params.size(), s.params.size()));
    config c;
    for (const auto& p : s.params) {
        const auto it = std::find_if(params.begin(), params.end(),
                                     [&](const auto& q) { return q.first == p.name; });
        if (it == params.end()) return fail(fmt::format("it has no parameter {}", p.name));
        if (std::find(p.values.begin(), p.values.end(), it->second) == p.values.end())
            return fail(fmt::format("{}={} is not among the spec's values", p.name,
                                    display_text(it->second)));
        c.values.push_back(it->second);
    }
    try {
        const bindings b = c.scope(s, scope);
        for (const auto& constraint : s.constraints)
            if (!constraint.eval_bool(b))
                return fail(fmt::format("constraint '{}' fails", constraint.text()));
        eval_launch(s, s.launch.grid, s.launch.block, b);
        for (const auto& buf : s.buffers)
            if (buf.count.eval_int(b) <= 0)
                return fail(fmt::format("buffer '{}' has no elements", buf.name));
    } catch (const input_error& e) {
        return fail(e.message());
    }
    return c.values;
}

std::string name_family(const std::string& device_name) {
    static const std::set<std::string> vendor = {"nvidia", "geforce", "tesla", "quadro",
                                                 "rtx",    "gtx",     "titan"};
    std::string word;
    auto take = [&]() -> std::optional<std::string> {
        std::string lower;
        for (char ch : word)
            lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        const bool digit = std::any_of(word.begin(), word.end(), [](char ch) {
            return std::isdigit(static_cast<unsigned char>(ch));
        });
        std::optional<std::string> out;
        if (!word.empty() && digit && !vendor.count(lower)) out = word;
        word.clear();
        return out;
    };
    for (char ch : device_name) {
        if (ch == ' ' || ch == '-' || ch == '_') {
            if (auto w = take()) return *w;
        } else {
            word += ch;
        }
    }
    if (auto w = take()) return *w;
    return device_name;
}

kernel_selection fallback_config(const spec& s, const device_attrs& dev,
                                 const std::vector<int64_t>& sizes) {
    kernel_selection sel;
    sel.tier = selection_tier::fallback;
    sel.kernel = s.kernel.name;
    sel.problem = problem_text(s, sizes);
    sel.device = dev.name;
    const bindings scope = size_scope(s, sizes, dev);
    auto take = [&](const std::vector<value>& values) {
        config c{values};
        sel.key = c.key(s);
        for (std::size_t i = 0; i < s.params.size(); ++i)
            sel.params.emplace_back(s.params[i].name, values[i]);
    };
    if (s.verify.ref == reference_kind::config) {
        param_pairs ref;
        for (const auto& p : s.params) {
            const auto it = s.verify.reference_params.find(p.name);
            ref.emplace_back(p.name,
                             it == s.verify.reference_params.end() ? p.values.front() : it->second);
        }
        std::string why;
        if (auto values = valid_config(s, scope, ref, &why)) {
            take(*values);
            sel.notes.push_back("the spec's verify reference configuration");
            return sel;
        }
        sel.notes.push_back(
            fmt::format("the verify reference configuration is not valid here ({})", why));
    }
    // The first valid configuration in space order (the last parameter turns fastest).
    std::vector<std::size_t> at(s.params.size(), 0);
    uint64_t tried = 0;
    constexpr uint64_t max_tries = 10'000'000;
    for (;;) {
        param_pairs params;
        for (std::size_t i = 0; i < s.params.size(); ++i)
            params.emplace_back(s.params[i].name, s.params[i].values[at[i]]);
        if (auto values = valid_config(s, scope, params)) {
            take(*values);
            sel.notes.push_back("the first valid configuration of the space");
            return sel;
        }
        std::size_t i = s.params.size();
        while (i-- > 0) {
            if (++at[i] < s.params[i].values.size()) break;
            at[i] = 0;
        }
        if (i == static_cast<std::size_t>(-1) || ++tried >= max_tries) break;
    }
    throw input_error({s.path, 0, 0},
                      fmt::format("{}: no configuration of the space is valid at {} on {} "
                                  "(constraints, launch dimensions or buffer counts fail)",
                                  s.kernel.name, sel.problem, dev.name));
}

}  // namespace hone::runtime
