// Problem sizes, parameters and constraints.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "spec/loader.hpp"
#include "spec/names.hpp"

namespace hone::spec_detail {
namespace {

void check_overrides(const std::map<std::string, int64_t>& overrides, const spec& s) {
    std::vector<std::string> known;
    for (const auto& p : s.problem) known.push_back(p.name);
    for (const auto& [name, v] : overrides) {
        if (std::find(known.begin(), known.end(), name) == known.end())
            throw input_error(
                {},
                fmt::format("--set {}={}: no problem size named '{}' (known: {}){}", name, v, name,
                            known.empty() ? "none" : join(known), suggestion(name, known)));
        if (v <= 0)
            throw input_error({}, fmt::format("--set {}={}: expected a positive integer", name, v));
    }
}

}  // namespace

void load_problem(const doc& d, const entry* e, const std::map<std::string, int64_t>& overrides,
                  spec& s) {
    if (e) {
        for (const auto& item : read_map(d, e->value, "problem")) {
            check_new_name(d, item.key_node, item.key, s);
            problem_size p{item.key, 0, value_pos(d, item)};
            const auto it = overrides.find(item.key);
            // The map form: {value: SIZE or [SIZES], define: false}.
            YAML::Node value = item.value;
            if (item.value.IsMap()) {
                const auto m = read_map(d, item.value, "problem." + item.key, {"value", "define"});
                const entry* v = find(m, "value");
                if (!v) fail(d, item.value, fmt::format("problem.{} needs a value", item.key));
                value = v->value;
                if (const entry* def = find(m, "define")) p.define = read_bool(d, def->value);
            }
            if (value.IsSequence()) {  // a size list: one run per value
                std::vector<int64_t> values;
                for (const YAML::Node& v : read_list(d, value, "problem sizes")) {
                    const int64_t x = read_int(d, v);
                    if (x <= 0) fail(d, v, fmt::format("expected a positive integer, got {}", x));
                    if (std::find(values.begin(), values.end(), x) != values.end())
                        fail(d, v, fmt::format("{} is listed twice", x));
                    values.push_back(x);
                }
                if (values.empty())
                    fail(d, value, "an empty list of sizes: give at least one value");
                p.value = it != overrides.end() ? it->second : values.front();
                s.problem_lists.emplace_back(item.key, std::move(values));
                s.problem.push_back(p);
                continue;
            }
            // Earlier sizes only: s.problem holds exactly those so far.
            const expression x = read_expr(d, value);
            check_expr(s, x, use_problem, "a problem size");
            p.value = it != overrides.end() ? it->second : x.eval_int(s.problem_bindings());
            s.problem.push_back(p);
        }
    }
    check_overrides(overrides, s);
}

void load_params(const doc& d, const entry* e, spec& s) {
    if (!e) return;
    for (const auto& item : read_map(d, e->value, "params")) {
        check_new_name(d, item.key_node, item.key, s);
        param_spec p;
        p.name = item.key;
        p.pos = value_pos(d, item);
        if (item.value.IsMap()) {
            p.values = expand_generator(d, item.value, item.key);
            const auto m = read_map(d, item.value, "params." + item.key);
            if (const entry* def = find(m, "define")) {
                p.define = read_bool(d, def->value);
                p.define_given = true;
            }
        } else {
            for (const auto& v :
                 read_list(d, item.value,
                           "values or a generator ({range: ...}, {pow2: ...}, {warps: ...})"))
                p.values.push_back(read_value(d, v));
        }
        if (p.values.empty())
            throw input_error(p.pos, fmt::format("parameter '{}' has no values", p.name));
        // 1, 1.0 and true are distinct values: their -D text differs.
        std::set<std::pair<std::size_t, std::string>> seen;
        for (const auto& v : p.values)
            if (!seen.emplace(v.index(), display_text(v)).second)
                throw input_error(
                    p.pos, fmt::format("parameter '{}' lists {} twice", p.name, display_text(v)));
        s.params.push_back(std::move(p));
    }
}

void load_constraints(const doc& d, const entry* e, spec& s) {
    if (!e) return;
    for (const auto& item : read_list(d, e->value, "constraint expressions")) {
        expression c = read_expr(d, item);
        if (const auto v = check_expr(s, c, use_all, "a constraint"))
            c.eval_bool(s.problem_bindings());
        s.constraints.push_back(std::move(c));
    }
}

}  // namespace hone::spec_detail
