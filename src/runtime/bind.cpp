#include "runtime/bind.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace hone::runtime {
namespace {

bool is_integer(elem_type t) {
    return !is_float(t);
}

bool is_signed_type(elem_type t) {
    return t == elem_type::i8 || t == elem_type::i16 || t == elem_type::i32 || t == elem_type::i64;
}

// What the caller passed, for messages.
std::string given_text(const arg& a) {
    switch (a.what()) {
        case arg::kind::pointer:
            return a.typed() ? fmt::format("a pointer to {}", elem_name(a.elem()))
                             : "an untyped pointer";
        case arg::kind::signed_int:
            return fmt::format("a {}-bit signed integer", 8 * a.size());
        case arg::kind::unsigned_int:
            return fmt::format("a {}-bit unsigned integer", 8 * a.size());
        case arg::kind::real:
            return a.size() == 4 ? "a float" : "a double";
    }
    return "an argument";
}

std::string layout_names(const arg_layout& l, bool buffers_only) {
    std::string out;
    for (const auto& s : l.slots) {
        if (buffers_only && !s.is_buffer) continue;
        out += (out.empty() ? "" : ", ") + s.name;
    }
    return out;
}

[[noreturn]] void wrong(const arg_layout& l, std::size_t i, const arg_slot& s,
                        const std::string& what) {
    throw input_error(s.pos,
                      fmt::format("{}: argument {} ({}): {}", l.kernel, i + 1, s.name, what));
}

// The integer range of t.
bool fits(elem_type t, const arg& a) {
    const bool negative = a.what() == arg::kind::signed_int && static_cast<int64_t>(a.bits()) < 0;
    if (negative && !is_signed_type(t)) return false;
    const std::size_t bits = 8 * elem_size(t);
    if (negative) {
        const int64_t v = static_cast<int64_t>(a.bits());
        return bits == 64 || v >= -(int64_t{1} << (bits - 1));
    }
    const uint64_t v = a.bits();
    const std::size_t value_bits = is_signed_type(t) ? bits - 1 : bits;
    return value_bits >= 64 || v < (uint64_t{1} << value_bits);
}

uint64_t scalar_slot(const arg_layout& l, std::size_t i, const arg_slot& s, const arg& a) {
    uint64_t slot = 0;
    if (a.what() == arg::kind::pointer)
        wrong(l, i, s,
              fmt::format("expected a {} scalar, got {}", elem_name(s.type), given_text(a)));
    if (is_integer(s.type)) {
        if (a.what() == arg::kind::real)
            wrong(l, i, s,
                  fmt::format("expected an integer ({}), got {} ({})", elem_name(s.type),
                              given_text(a), a.real()));
        if (!fits(s.type, a)) {
            const std::string v = a.what() == arg::kind::signed_int
                                      ? std::to_string(static_cast<int64_t>(a.bits()))
                                      : std::to_string(a.bits());
            wrong(l, i, s, fmt::format("{} does not fit {}", v, elem_name(s.type)));
        }
        slot = a.bits();
        return slot;
    }
    double v = a.real();
    if (a.what() != arg::kind::real) {
        // An integer for a float parameter: as C converts it, when that is exact.
        const bool negative =
            a.what() == arg::kind::signed_int && static_cast<int64_t>(a.bits()) < 0;
        v = negative ? static_cast<double>(static_cast<int64_t>(a.bits()))
                     : static_cast<double>(a.bits());
        const double limit = s.type == elem_type::f32 ? 16777216.0 : 9007199254740992.0;
        if (std::abs(v) > limit)
            wrong(l, i, s,
                  fmt::format("expected a {}, got an integer that it cannot hold exactly",
                              elem_name(s.type)));
    }
    if (s.type == elem_type::f32) {
        const float f = static_cast<float>(v);
        std::memcpy(&slot, &f, sizeof f);
    } else {
        std::memcpy(&slot, &v, sizeof v);
    }
    return slot;
}

uint64_t pointer_slot(const arg_layout& l, std::size_t i, const arg_slot& s, const arg& a) {
    if (a.what() != arg::kind::pointer) {
        const bool like_deviceptr = a.what() == arg::kind::unsigned_int && a.size() == 8;
        wrong(l, i, s,
              fmt::format("expected a device pointer to the {} buffer (T*, void* or "
                          "hone::device_ptr(CUdeviceptr)), got {}{}",
                          elem_name(s.type), given_text(a),
                          like_deviceptr ? ": integers are scalars, so wrap a CUdeviceptr in "
                                           "hone::device_ptr()"
                                         : ""));
    }
    if (a.typed() && a.elem() != s.type)
        wrong(l, i, s,
              fmt::format("expected a pointer to {} (the buffer's type), got a pointer to {}",
                          elem_name(s.type), elem_name(a.elem())));
    return a.bits();
}

}  // namespace

arg_layout arg_layout::of(const spec& s) {
    arg_layout l;
    l.kernel = s.kernel.name;
    l.config = s.path;
    for (const auto& a : s.args) {
        arg_slot slot;
        slot.is_buffer = a.is_buffer;
        slot.pos = a.pos;
        if (a.is_buffer) {
            const buffer_spec* b = s.find_buffer(a.buffer);
            if (!b) throw input_error(a.pos, fmt::format("no buffer named '{}'", a.buffer));
            slot.name = a.buffer;
            slot.type = b->type;
            ++l.buffers;
        } else {
            slot.name = a.scalar.text();
            slot.type = a.type;  // the loader admits no half or bfloat16 scalar
        }
        l.slots.push_back(std::move(slot));
    }
    return l;
}

bool bind_args(const arg_layout& l, std::span<const arg> given, uint64_t* out) {
    const std::size_t n = l.slots.size();
    const bool buffers_only = given.size() == l.buffers && given.size() != n;
    if (given.size() != n && !buffers_only) {
        std::string expected = fmt::format("{} ({})", n, layout_names(l, false));
        if (l.buffers != n)
            expected +=
                fmt::format(", or the {} buffers ({}) with the scalars evaluated from the sizes",
                            l.buffers, layout_names(l, true));
        throw input_error({l.config, 0, 0},
                          fmt::format("{}: {} argument{} given; expected {}", l.kernel,
                                      given.size(), given.size() == 1 ? "" : "s", expected));
    }
    std::size_t g = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const arg_slot& s = l.slots[i];
        if (buffers_only && !s.is_buffer) {
            out[i] = 0;
            continue;
        }
        out[i] = s.is_buffer ? pointer_slot(l, g, s, given[g]) : scalar_slot(l, g, s, given[g]);
        ++g;
    }
    return buffers_only;
}

}  // namespace hone::runtime
