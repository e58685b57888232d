// Verification: which outputs, tolerances, and the reference (a configuration or a kernel).
#include <fmt/format.h>

#include "spec/loader.hpp"
#include "spec/names.hpp"

namespace hone::spec_detail {
namespace {

// Picks the parameter's own value that `n` spells: 256 for an integer list, "int" or int
// for a string list.
value read_param_value(const doc& d, const YAML::Node& n, const param_spec& p) {
    const value v = read_value(d, n);
    for (const auto& candidate : p.values) {
        const auto* text = std::get_if<std::string>(&candidate);
        if (candidate == v || (text && *text == n.Scalar())) return candidate;
    }
    std::vector<std::string> listed;
    for (const auto& c : p.values) listed.push_back(display_text(c));
    fail(d, n,
         fmt::format("{} is not a value of parameter '{}' (expected one of: {})", display_text(v),
                     p.name, join(listed)));
}

void read_reference(const doc& d, const entry& e, spec& s) {
    verify_spec& v = s.verify;
    const auto m = read_map(d, e.value, "verify.reference");
    std::vector<std::string> known = {"kernel", "grid", "block"};
    for (const auto& p : s.params) known.push_back(p.name);
    const entry* kernel = find(m, "kernel");
    v.ref = kernel ? reference_kind::kernel : reference_kind::config;
    for (const auto& item : m) {
        if (item.key == "kernel" || item.key == "grid" || item.key == "block") {
            if (!kernel)
                fail(d, item.key_node,
                     fmt::format("'{}' needs 'kernel' in verify.reference", item.key));
            continue;
        }
        const param_spec* p = s.find_param(item.key);
        if (!p)
            fail(d, item.key_node,
                 fmt::format("unknown key '{}' in verify.reference (expected kernel, grid, block "
                             "or a parameter: {}){}",
                             item.key, join(known), suggestion(item.key, known)));
        v.reference_params[item.key] = read_param_value(d, item.value, *p);
    }
    if (!kernel) return;
    v.reference_kernel = read_string(d, kernel->value, "a kernel name");
    check_placeholders(d, kernel->value, v.reference_kernel, s);
    check_kernel_in_source(d, kernel->value, v.reference_kernel, s);
    // The reference takes the same arguments; by default it launches like the tuned kernel.
    const entry* grid = find(m, "grid");
    const entry* block = find(m, "block");
    v.reference_grid = grid ? read_dims(d, grid->value, "reference grid", s) : s.launch.grid;
    v.reference_block = block ? read_dims(d, block->value, "reference block", s) : s.launch.block;
}

void read_outputs(const doc& d, const YAML::Node& n, spec& s) {
    for (const auto& item : read_list(d, n, "buffer names")) {
        const std::string name = read_string(d, item, "a buffer name");
        const buffer_spec* b = s.find_buffer(name);
        if (!b) fail(d, item, fmt::format("verify.outputs: no buffer named '{}'", name));
        if (b->role == buffer_role::in)
            fail(d, item,
                 fmt::format(
                     "verify.outputs: buffer '{}' has role in; expected an out or inout buffer",
                     name));
        s.verify.outputs.push_back(name);
    }
}

double read_tolerance(const doc& d, const entry& e) {
    const double t = read_real(d, e.value);
    if (t < 0) fail(d, e.value, fmt::format("{} must be >= 0", e.key));
    return t;
}

}  // namespace

void load_verify(const doc& d, const entry* e, spec& s) {
    if (e) {
        const auto m = read_map(d, e->value, "verify", {"outputs", "rtol", "atol", "reference"});
        s.verify.pos = value_pos(d, *e);
        if (const entry* o = find(m, "outputs")) read_outputs(d, o->value, s);
        if (const entry* r = find(m, "rtol")) s.verify.rtol = read_tolerance(d, *r);
        if (const entry* a = find(m, "atol")) s.verify.atol = read_tolerance(d, *a);
        if (const entry* r = find(m, "reference")) {
            s.verify.pos = value_pos(d, *r);
            read_reference(d, *r, s);
        }
    }
    if (s.verify.outputs.empty())
        for (const auto& b : s.buffers)
            if (b.role != buffer_role::in) s.verify.outputs.push_back(b.name);
}

}  // namespace hone::spec_detail
