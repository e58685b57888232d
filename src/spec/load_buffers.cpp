// Buffers (type, count, role, memory, init) and the kernel's argument list.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "spec/loader.hpp"
#include "spec/names.hpp"

namespace hone::spec_detail {
namespace {

std::vector<std::string> type_names() {
    std::vector<std::string> out;
    for (int t = 0; t <= static_cast<int>(elem_type::u64); ++t)
        out.push_back(elem_name(static_cast<elem_type>(t)));
    return out;
}

elem_type read_type(const doc& d, const YAML::Node& n, bool scalar) {
    const std::string s = read_string(d, n, "an element type");
    const auto t = parse_elem_type(s);
    if (!t) {
        const auto names = type_names();
        fail(d, n,
             fmt::format("unknown {}type '{}' (expected one of: {}){}",
                         scalar ? "scalar " : "element ", s, join(names), suggestion(s, names)));
    }
    return *t;
}

void check_count(const doc& d, const YAML::Node& n, const buffer_spec& b, const spec& s) {
    if (!check_expr(s, b.count, use_problem | use_device, "buffer counts"))
        return;  // needs the device
    const int64_t count = b.count.eval_int(s.problem_bindings());
    if (count <= 0)
        fail(d, n,
             fmt::format("buffer '{}': count = {}; expected a positive integer", b.name, count));
    if (count > std::numeric_limits<int64_t>::max() / static_cast<int64_t>(elem_size(b.type)))
        fail(d, n,
             fmt::format("buffer '{}': {} elements of {} bytes overflow a 64-bit size", b.name,
                         count, elem_size(b.type)));
}

// A literal kind, or an expression (usually a string parameter) checked per configuration.
expression read_memory(const doc& d, const YAML::Node& n, const spec& s) {
    if (n.IsScalar() && (n.Scalar() == "device" || n.Scalar() == "managed"))
        return expression::constant(n.Scalar());
    check_choice_word(d, n, s, "memory", "device or managed");
    const expression e = read_expr(d, n);
    if (const auto v = check_expr(s, e, use_all, "memory")) {
        const auto* text = std::get_if<std::string>(&*v);
        if (!text || (*text != "device" && *text != "managed"))
            fail(d, n,
                 fmt::format("memory is {}; expected \"device\" or \"managed\"", display_text(*v)));
    }
    return e;
}

buffer_spec read_buffer(const doc& d, const entry& item, const spec& s) {
    const std::string section = "buffers." + item.key;
    const auto m =
        read_map(d, item.value, section, {"type", "count", "role", "memory", "init", "symbol"});
    buffer_spec b;
    b.name = item.key;
    b.pos = pos_of(d, item.key_node);
    if (const entry* t = find(m, "type")) b.type = read_type(d, t->value, false);
    const entry& count = require(d, item.value, m, "count", section);
    b.count = read_expr(d, count.value);
    check_count(d, count.value, b, s);
    if (const entry* role = find(m, "role")) {
        const std::string r = read_choice(d, role->value, {"in", "out", "inout"});
        b.role = r == "in" ? buffer_role::in : r == "out" ? buffer_role::out : buffer_role::inout;
    }
    b.memory = expression::constant(std::string("device"));
    if (const entry* mem = find(m, "memory")) b.memory = read_memory(d, mem->value, s);
    if (const entry* init = find(m, "init")) b.init = read_init(d, init->value, section + ".init");
    if (const entry* sym = find(m, "symbol")) {
        b.symbol = read_string(d, sym->value, "a variable name");
        if (!is_identifier(b.symbol))
            fail(d, sym->value,
                 fmt::format("symbol '{}' is not a C identifier: name the kernel's __constant__ "
                             "or __device__ variable",
                             b.symbol));
        if (b.role != buffer_role::in)
            fail(d, sym->value,
                 fmt::format("buffer '{}' fills the variable '{}' before the launches: its role "
                             "must be in (a kernel cannot write back through it)",
                             b.name, b.symbol));
    }
    return b;
}

arg_spec read_scalar_arg(const doc& d, const YAML::Node& n, const spec& s) {
    const auto m = read_map(d, n, "args", {"value", "type"});
    arg_spec a;
    a.is_buffer = false;
    a.pos = pos_of(d, n);
    a.scalar = read_expr(d, require(d, n, m, "value", "a scalar argument").value);
    if (const entry* t = find(m, "type")) a.type = read_type(d, t->value, true);
    if (const auto v = check_expr(s, a.scalar, use_all, "arguments")) {
        if (std::holds_alternative<std::string>(*v))
            fail(d, n,
                 fmt::format("argument value {} is a string; expected a number", display_text(*v)));
        if (!is_float(a.type) && std::holds_alternative<double>(*v))
            fail(d, n,
                 fmt::format("argument value {} is a real; the type {} needs an integer",
                             display_text(*v), elem_name(a.type)));
    }
    return a;
}

}  // namespace

void load_buffers(const doc& d, const entry* e, spec& s) {
    if (!e) return;
    for (const auto& item : read_map(d, e->value, "buffers")) {
        if (!is_identifier(item.key))
            fail(d, item.key_node,
                 fmt::format("'{}' is not a valid buffer name: expected letters, digits and '_'",
                             item.key));
        s.buffers.push_back(read_buffer(d, item, s));
    }
}

void load_args(const doc& d, const entry& e, spec& s) {
    for (const auto& item :
         read_list(d, e.value, "kernel arguments (buffer names or {value: ..., type: ...})")) {
        if (item.IsMap()) {
            s.args.push_back(read_scalar_arg(d, item, s));
            continue;
        }
        arg_spec a;
        a.buffer = read_string(d, item, "a buffer name or {value: ..., type: ...}");
        a.pos = pos_of(d, item);
        if (!s.find_buffer(a.buffer)) {
            // A scalar argument is written {value: ..., type: ...}; a bare name is a buffer.
            const bool scalar_name =
                s.find_param(a.buffer) != nullptr ||
                std::any_of(s.problem.begin(), s.problem.end(),
                            [&](const problem_size& p) { return p.name == a.buffer; });
            if (scalar_name)
                fail(d, item,
                     fmt::format("no buffer named '{0}': a bare name in args is a buffer; pass the "
                                 "value of '{0}' as {{value: {0}, type: int64}} (or the kernel "
                                 "parameter's type)",
                                 a.buffer));
            std::vector<std::string> names;
            for (const auto& b : s.buffers) names.push_back(b.name);
            fail(d, item,
                 fmt::format("no buffer named '{}' (buffers: {}){}", a.buffer,
                             names.empty() ? "none" : join(names), suggestion(a.buffer, names)));
        }
        a.type = s.find_buffer(a.buffer)->type;
        s.args.push_back(std::move(a));
    }
}

}  // namespace hone::spec_detail
