// From a spec and a configuration to plain GPU work: launch sizes, arguments, buffers,
// and the identity under which results are stored.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>

#include "common/digest.hpp"
#include "compile/compile.hpp"
#include "hone/tuner.hpp"
#include "tune/internal.hpp"
#include "verify/float16.hpp"

namespace hone {
namespace {

uint32_t eval_dim(const expression& e, const bindings& scope, const char* what, std::size_t i) {
    const int64_t v = e.eval_int(scope);
    if (v <= 0 || v > std::numeric_limits<int32_t>::max()) {
        throw input_error(e.pos(), fmt::format("{}[{}] = {} ({}): expected 1 .. 2147483647", what,
                                               i, v, e.text()));
    }
    return static_cast<uint32_t>(v);
}

uint64_t scalar_bits(elem_type t, const value& v, const source_pos& pos) {
    uint64_t bits = 0;
    auto as_real = [&] {
        if (auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
        if (auto* d = std::get_if<double>(&v)) return *d;
        if (auto* b = std::get_if<bool>(&v)) return *b ? 1.0 : 0.0;
        throw input_error(pos, "expected a number for a scalar argument, got a string");
    };
    auto as_int = [&]() -> int64_t {
        if (auto* i = std::get_if<int64_t>(&v)) return *i;
        if (auto* b = std::get_if<bool>(&v)) return *b;
        if (std::holds_alternative<double>(v))
            throw input_error(pos, fmt::format("expected an integer for a {} argument, got {}",
                                               elem_name(t), display_text(v)));
        throw input_error(pos, "expected a number for a scalar argument, got a string");
    };
    switch (t) {
        case elem_type::f32: {
            const float f = static_cast<float>(as_real());
            std::memcpy(&bits, &f, sizeof f);
            break;
        }
        case elem_type::f64: {
            const double d = as_real();
            std::memcpy(&bits, &d, sizeof d);
            break;
        }
        case elem_type::f16:  // the 16 bits the kernel's __half parameter reads
            bits = float_to_half(static_cast<float>(as_real()));
            break;
        case elem_type::bf16:
            bits = float_to_bf16(static_cast<float>(as_real()));
            break;
        default: {
            const int64_t i = as_int();
            // The kernel reads the low bytes: a value they cannot hold would arrive changed.
            const std::size_t bytes = elem_size(t);
            const bool is_unsigned = t == elem_type::u8 || t == elem_type::u16 ||
                                     t == elem_type::u32 || t == elem_type::u64;
            const int64_t lo = is_unsigned  ? 0
                               : bytes >= 8 ? std::numeric_limits<int64_t>::min()
                                            : -(int64_t{1} << (8 * bytes - 1));
            const int64_t hi = bytes >= 8    ? std::numeric_limits<int64_t>::max()
                               : is_unsigned ? (int64_t{1} << (8 * bytes)) - 1
                                             : (int64_t{1} << (8 * bytes - 1)) - 1;
            if (i < lo || i > hi)
                throw input_error(
                    pos, fmt::format("{} does not fit an argument of type {} ({} .. {})", i,
                                     elem_name(t), lo, hi));
            std::memcpy(&bits, &i, sizeof i);  // little-endian: the low bytes are the value
            break;
        }
    }
    return bits;
}

}  // namespace

launch_dims eval_launch(const spec& s, const std::vector<expression>& grid,
                        const std::vector<expression>& block, const bindings& scope) {
    launch_dims d;
    for (std::size_t i = 0; i < grid.size() && i < 3; ++i)
        d.grid[i] = eval_dim(grid[i], scope, "grid", i);
    for (std::size_t i = 0; i < block.size() && i < 3; ++i)
        d.block[i] = eval_dim(block[i], scope, "block", i);
    const int64_t shared = s.launch.shared_bytes.eval_int(scope);
    if (shared < 0 || shared > std::numeric_limits<int32_t>::max())
        throw input_error(s.launch.shared_bytes.pos(),
                          fmt::format("shared_bytes = {}: expected 0 .. 2147483647", shared));
    d.shared_bytes = static_cast<uint32_t>(shared);
    return d;
}

memory_kind eval_memory(const spec& s, const bindings& scope) {
    std::optional<memory_kind> kind;
    const buffer_spec* first = nullptr;
    for (const auto& b : s.buffers) {
        const value v = b.memory.eval(scope);
        const auto* text = std::get_if<std::string>(&v);
        memory_kind k;
        if (text && *text == "device") {
            k = memory_kind::device;
        } else if (text && *text == "managed") {
            k = memory_kind::managed;
        } else {
            throw input_error(b.memory.pos(), fmt::format("buffer '{}': memory is {}; expected "
                                                          "\"device\" or \"managed\"",
                                                          b.name, display_text(v)));
        }
        if (kind && *kind != k) {
            throw input_error(b.pos, fmt::format("buffers '{}' and '{}' use different memory kinds "
                                                 "in one configuration; hone uses one kind per "
                                                 "configuration",
                                                 first->name, b.name));
        }
        kind = k;
        if (!first) first = &b;
    }
    return kind.value_or(memory_kind::device);
}

std::vector<kernel_arg> eval_args(const spec& s, const bindings& scope) {
    std::vector<kernel_arg> args;
    for (const auto& a : s.args) {
        kernel_arg k;
        if (a.is_buffer) {
            for (std::size_t i = 0; i < s.buffers.size(); ++i)
                if (s.buffers[i].name == a.buffer) k.buffer = static_cast<int>(i);
            if (k.buffer < 0)
                throw input_error(a.pos, fmt::format("no buffer named '{}'", a.buffer));
            k.type = s.buffers[static_cast<std::size_t>(k.buffer)].type;
        } else {
            k.type = a.type;
            k.bits = scalar_bits(a.type, a.scalar.eval(scope), a.scalar.pos());
        }
        args.push_back(k);
    }
    return args;
}

run_plan make_run_plan(const spec& s, const search_space& space) {
    run_plan plan;
    plan.timing = s.timing;
    plan.rtol = s.verify.rtol;
    plan.atol = s.verify.atol;
    for (const auto& b : s.buffers) {
        buffer_plan p;
        p.name = b.name;
        p.type = b.type;
        const int64_t count = b.count.eval_int(space.base());
        if (count <= 0)
            throw input_error(b.count.pos(), fmt::format("buffer '{}': count = {}; expected a "
                                                         "positive integer",
                                                         b.name, count));
        p.count = static_cast<uint64_t>(count);
        // A file of the wrong size would stop the run when the GPU is ready: said here, where
        // `check` sees it too.
        if (b.init.kind == init_kind::file) {
            std::error_code ec;
            const auto size = std::filesystem::file_size(b.init.path, ec);
            const uint64_t need = p.count * elem_size(b.type);
            if (!ec && size != need)
                throw input_error(b.pos, fmt::format("buffer '{}' needs {} bytes ({} elements of "
                                                     "{}); its init file {} has {}",
                                                     b.name, need, p.count, elem_name(b.type),
                                                     b.init.path, size));
        }
        p.role = b.role;
        p.init = b.init;
        p.symbol = b.symbol;
        p.need_device = false;
        const bool is_output = b.role != buffer_role::in;
        if (s.verify.ref != reference_kind::none && is_output) {
            p.verify = s.verify.outputs.empty();
            for (const auto& o : s.verify.outputs) p.verify = p.verify || o == b.name;
        }
        plan.buffers.push_back(p);
    }
    // Which memory sets are needed. The memory expressions use few parameters (usually one, or
    // none): each combination of their values that some valid configuration takes is evaluated
    // once, on such a configuration, whatever the size of the space.
    std::vector<uint32_t> used;
    for (const auto& b : s.buffers)
        for (const auto& name : b.memory.names())
            for (std::size_t d = 0; d < s.params.size(); ++d)
                if (s.params[d].name == name &&
                    std::find(used.begin(), used.end(), d) == used.end())
                    used.push_back(static_cast<uint32_t>(d));
    uint64_t combos = 1;
    for (uint32_t d : used) combos *= space.cardinality(d);
    auto mark = [&](const config& c) {
        const memory_kind k = eval_memory(s, c.scope(s, space.base()));
        for (auto& p : plan.buffers)
            (k == memory_kind::device ? p.need_device : p.need_managed) = true;
    };
    bool marked = false;
    if (combos <= 4096) {
        std::vector<std::optional<uint32_t>> fixed(space.dims());
        for (uint64_t i = 0; i < combos; ++i) {
            uint64_t rest = i;
            for (uint32_t d : used) {
                fixed[d] = static_cast<uint32_t>(rest % space.cardinality(d));
                rest /= space.cardinality(d);
            }
            if (const auto p = space.find(fixed)) {
                mark(space.to_config(*p));
                marked = true;
            }
        }
    } else {
        // Thousands of combinations of memory parameters: prepare both sets rather than search.
        for (auto& p : plan.buffers) p.need_device = p.need_managed = true;
        marked = true;
    }
    if (!marked) mark(space.make_config({}, s.verify.pos));
    return plan;
}

run_identity make_identity(const spec& s, const device_info& dev) {
    run_identity id;
    id.config_path = s.path;
    id.kernel_name = s.kernel.name;
    id.source_hash = kernel_source_hash(s.kernel);
    digest d;
    d.add(s.kernel.name);
    for (const auto& o : s.kernel.options) d.add(o);
    // Which parameters reach the source as -D macros (their values are in each result's key).
    for (const auto& p : s.params)
        if (!p.define) d.add("undefined:" + p.name);
    for (const auto& p : s.problem)
        if (!p.define) d.add("undefined size:" + p.name);
    for (const auto& i : s.kernel.include_dirs) d.add(i);
    d.add(s.kernel.max_registers.text()).add(s.kernel.fast_math.text());
    for (const auto& b : s.buffers) {
        d.add(b.name).add(elem_name(b.type)).add(b.count.text()).add(b.memory.text());
        d.add(std::to_string(static_cast<int>(b.role)))
            .add(std::to_string(static_cast<int>(b.init.kind)));
        d.add(fmt::format("{}/{}/{}/{}", b.init.a, b.init.b, b.init.seed, b.init.path));
        if (!b.symbol.empty()) d.add("symbol:" + b.symbol);
    }
    for (const auto& a : s.args)
        d.add(a.is_buffer ? a.buffer : a.scalar.text() + ":" + elem_name(a.type));
    for (const auto& g : s.launch.grid) d.add(g.text());
    for (const auto& b : s.launch.block) d.add(b.text());
    d.add(s.launch.shared_bytes.text());
    if (s.launch.cooperative) d.add("cooperative");
    d.add(fmt::format("{}/{}/{}", s.verify.rtol, s.verify.atol, static_cast<int>(s.verify.ref)));
    for (const auto& [k, v] : s.verify.reference_params) d.add(k + "=" + display_text(v));
    d.add(s.verify.reference_kernel);
    d.add(s.timing.l2_flush ? "flush" : "warm").add(s.timing.sample_mode);
    // The timer changes what a median means (events include the launch's fixed cost); with
    // "auto" the timer each result used is stored with it.
    if (s.timing.timer != "auto") d.add("timer:" + s.timing.timer);
    id.spec_hash = d.hex();
    std::string problem;
    for (const auto& p : s.problem)
        problem += (problem.empty() ? "" : ",") + p.name + "=" + std::to_string(p.value);
    id.problem = problem;
    id.device_name = dev.attrs.name;
    id.device_uuid = dev.uuid;
    id.arch = dev.attrs.arch();
    id.driver_version = dev.driver_version;
    id.nvrtc_version = nvrtc_version();
    id.tool_version = tool_version();
    id.objective = s.metrics.objective;
    return id;
}

}  // namespace hone
