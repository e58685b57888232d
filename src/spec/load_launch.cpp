// Launch sizes and metrics.
#include <fmt/format.h>

#include <limits>

#include "spec/loader.hpp"
#include "spec/names.hpp"

namespace hone::spec_detail {

// 1 to 3 expressions; a lone scalar is one dimension. Dimensions that use neither parameters
// nor device attributes are checked here; the others per configuration by the tune layer.
std::vector<expression> read_dims(const doc& d, const YAML::Node& n, const std::string& what,
                                  const spec& s) {
    const std::vector<YAML::Node> items =
        n.IsScalar() ? std::vector<YAML::Node>{n} : read_list(d, n, "1 to 3 expressions");
    if (items.empty() || items.size() > 3)
        fail(d, n, fmt::format("{}: expected 1 to 3 dimensions, got {}", what, items.size()));
    std::vector<expression> out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        expression e = read_expr(d, items[i]);
        if (check_expr(s, e, use_all, what)) {
            const int64_t v = e.eval_int(s.problem_bindings());
            if (v <= 0 || v > std::numeric_limits<int32_t>::max())
                fail(d, items[i], fmt::format("{}[{}] = {}: expected 1 .. 2147483647", what, i, v));
        }
        out.push_back(std::move(e));
    }
    return out;
}

void load_launch(const doc& d, const entry& e, spec& s) {
    const auto m = read_map(d, e.value, "launch", {"grid", "block", "shared_bytes", "cooperative"});
    s.launch.pos = value_pos(d, e);
    s.launch.grid = read_dims(d, require(d, e.value, m, "grid", "launch").value, "grid", s);
    s.launch.block = read_dims(d, require(d, e.value, m, "block", "launch").value, "block", s);
    if (const entry* shared = find(m, "shared_bytes")) {
        s.launch.shared_bytes = read_expr(d, shared->value);
        if (check_expr(s, s.launch.shared_bytes, use_all, "shared_bytes")) {
            const int64_t v = s.launch.shared_bytes.eval_int(s.problem_bindings());
            if (v < 0 || v > std::numeric_limits<int32_t>::max())
                fail(d, shared->value,
                     fmt::format("shared_bytes = {}: expected 0 .. 2147483647", v));
        }
    }
    if (const entry* coop = find(m, "cooperative"))
        s.launch.cooperative = read_bool(d, coop->value);
}

void load_metrics(const doc& d, const entry* e, spec& s) {
    if (!e) return;
    const auto m = read_map(d, e->value, "metrics", {"bytes", "flops", "objective"});
    for (auto [key, slot] :
         {std::pair{"bytes", &s.metrics.bytes}, std::pair{"flops", &s.metrics.flops}}) {
        const entry* x = find(m, key);
        if (!x) continue;
        *slot = read_expr(d, x->value);
        if (check_expr(s, **slot, use_all, key) && (*slot)->eval_real(s.problem_bindings()) <= 0)
            fail(d, x->value, fmt::format("metrics.{} must be positive", key));
    }
    if (const entry* obj = find(m, "objective")) {
        s.metrics.objective = read_choice(d, obj->value, {"time", "gbps", "gflops"});
        if (s.metrics.objective == "gbps" && !s.metrics.bytes)
            fail(d, obj->value, "objective gbps needs metrics.bytes");
        if (s.metrics.objective == "gflops" && !s.metrics.flops)
            fail(d, obj->value, "objective gflops needs metrics.flops");
    }
}

}  // namespace hone::spec_detail
