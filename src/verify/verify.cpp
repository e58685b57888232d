#include "verify/verify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "verify/float16.hpp"

namespace hone {
namespace {

// Quiet NaNs with an 0xA5 payload; computed NaNs on NVIDIA GPUs are the canonical all-ones.
constexpr uint16_t poison_f16 = 0x7ea5;
constexpr uint16_t poison_bf16 = 0x7fe5;
constexpr uint32_t poison_f32 = 0x7fe5a5a5;
constexpr uint64_t poison_f64 = 0x7ffca5a5a5a5a5a5;

// The element's bits, zero-extended.
uint64_t raw_bits(elem_type t, const void* data, std::size_t i) {
    const std::size_t size = elem_size(t);
    uint64_t bits = 0;
    std::memcpy(&bits, static_cast<const uint8_t*>(data) + i * size, size);  // little-endian
    return bits;
}

double float_value(elem_type t, uint64_t bits) {
    switch (t) {
        case elem_type::f16:
            return half_to_float(static_cast<uint16_t>(bits));
        case elem_type::bf16:
            return bf16_to_float(static_cast<uint16_t>(bits));
        case elem_type::f32:
            return std::bit_cast<float>(static_cast<uint32_t>(bits));
        default:
            return std::bit_cast<double>(bits);
    }
}

bool is_signed_int(elem_type t) {
    return t == elem_type::i8 || t == elem_type::i16 || t == elem_type::i32 || t == elem_type::i64;
}

int64_t sign_extend(uint64_t bits, std::size_t size) {
    const int unused = static_cast<int>(64 - 8 * size);
    return static_cast<int64_t>(bits << unused) >> unused;
}

// The value as printed in messages: floats in their shortest round-trip form.
std::string value_text(elem_type t, uint64_t bits) {
    if (t == elem_type::f64) return fmt::format("{}", std::bit_cast<double>(bits));
    if (is_float(t)) return fmt::format("{}", static_cast<float>(float_value(t, bits)));
    if (is_signed_int(t)) return fmt::format("{}", sign_extend(bits, elem_size(t)));
    return fmt::format("{}", bits);
}

double numeric_value(elem_type t, uint64_t bits) {
    if (is_float(t)) return float_value(t, bits);
    if (is_signed_int(t)) return static_cast<double>(sign_extend(bits, elem_size(t)));
    return static_cast<double>(bits);
}

// Classifies one element; updates the error maxima. Returns true when it is bad.
bool element_bad(elem_type t, uint64_t got, uint64_t ref, double rtol, double atol,
                 verify_outcome& out) {
    if (got == ref) return false;
    const bool ref_nan = is_float(t) && std::isnan(float_value(t, ref));
    if (got == poison_bits(t) && !ref_nan) {
        ++out.unwritten;
        return true;
    }
    const double g = numeric_value(t, got), r = numeric_value(t, ref);
    if (!is_float(t)) {  // integers: exact
        out.max_abs_err = std::max(out.max_abs_err, std::fabs(g - r));
        return true;
    }
    if (std::isnan(g)) {
        if (!ref_nan) ++out.nan_count;
        return !ref_nan;  // any NaN matches a NaN
    }
    if (g == r) return false;  // +0 and -0
    const double abs_err = std::fabs(g - r);
    out.max_abs_err = std::max(out.max_abs_err, abs_err);
    if (r != 0.0) out.max_rel_err = std::max(out.max_rel_err, abs_err / std::fabs(r));
    // An infinity matches only itself (the tolerance would be infinite too).
    if (std::isinf(g) || std::isinf(r)) return true;
    return !(abs_err <= atol + rtol * std::fabs(r));
}

// The common case for floats, without the generic path's per-element dispatch (31 ns -> ~2 ns
// per element on this machine): finite values within tolerance. Anything else goes to
// element_bad, which classifies it. Returns true when the element is bad.
template <typename F>
bool float_bad(elem_type t, F g, F r, uint64_t gbits, uint64_t rbits, double rtol, double atol,
               verify_outcome& out) {
    if (gbits == rbits) return false;
    if (std::isfinite(g) && std::isfinite(r)) {
        const double gd = g, rd = r;
        const double abs_err = std::fabs(gd - rd);
        if (abs_err <= atol + rtol * std::fabs(rd)) {
            out.max_abs_err = std::max(out.max_abs_err, abs_err);
            if (rd != 0.0) out.max_rel_err = std::max(out.max_rel_err, abs_err / std::fabs(rd));
            return false;
        }
    }
    return element_bad(t, gbits, rbits, rtol, atol, out);
}

template <typename F, typename Bits>
void compare_floats(elem_type t, const uint8_t* got, const uint8_t* ref, std::size_t start,
                    std::size_t end, double rtol, double atol, verify_outcome& out) {
    for (std::size_t i = start; i < end; ++i) {
        Bits gb, rb;
        std::memcpy(&gb, got + i * sizeof(F), sizeof(F));
        std::memcpy(&rb, ref + i * sizeof(F), sizeof(F));
        if (!float_bad<F>(t, std::bit_cast<F>(gb), std::bit_cast<F>(rb), gb, rb, rtol, atol, out))
            continue;
        if (out.bad++ == 0) out.first_bad = i;
    }
}

std::string describe(elem_type t, const verify_outcome& out, uint64_t got, uint64_t ref,
                     const std::string& name) {
    const std::string first =
        got == poison_bits(t) && got != ref
            ? fmt::format("never written, expected {}", value_text(t, ref))
            : fmt::format("got {}, expected {}", value_text(t, got), value_text(t, ref));
    // The error maximum means something only when some element is a number out of tolerance.
    std::string extra;
    if (out.bad > out.nan_count + out.unwritten)
        extra += fmt::format("; max abs err {}", out.max_abs_err);
    if (out.nan_count) extra += fmt::format("; {} NaN", out.nan_count);
    if (out.unwritten) extra += fmt::format("; {} unwritten", out.unwritten);
    return fmt::format("buffer {}: {} of {} elements differ (first at {}: {}{})", name, out.bad,
                       out.checked, out.first_bad, first, extra);
}

}  // namespace

uint64_t poison_bits(elem_type t) {
    switch (t) {
        case elem_type::f16:
            return poison_f16;
        case elem_type::bf16:
            return poison_bf16;
        case elem_type::f32:
            return poison_f32;
        case elem_type::f64:
            return poison_f64;
        default:
            return 0xa5a5a5a5a5a5a5a5ull >> (64 - 8 * elem_size(t));
    }
}

void fill_poison(elem_type t, void* data, std::size_t count) {
    const std::size_t size = elem_size(t);
    const uint64_t bits = poison_bits(t);
    auto* p = static_cast<uint8_t*>(data);
    for (std::size_t i = 0; i < count; ++i) std::memcpy(p + i * size, &bits, size);
}

verify_outcome compare_buffers(elem_type t, const void* got, const void* ref, std::size_t count,
                               double rtol, double atol, const std::string& buffer_name) {
    verify_outcome out;
    out.checked = count;
    // Most outputs match the reference bit for bit: memcmp skips equal blocks at memory speed,
    // and only blocks with a difference are classified element by element.
    constexpr std::size_t block = 4096;
    const std::size_t size = elem_size(t);
    const auto* g = static_cast<const uint8_t*>(got);
    const auto* r = static_cast<const uint8_t*>(ref);
    for (std::size_t start = 0; start < count; start += block) {
        const std::size_t end = std::min(count, start + block);
        if (std::memcmp(g + start * size, r + start * size, (end - start) * size) == 0) continue;
        if (t == elem_type::f32) {
            compare_floats<float, uint32_t>(t, g, r, start, end, rtol, atol, out);
            continue;
        }
        if (t == elem_type::f64) {
            compare_floats<double, uint64_t>(t, g, r, start, end, rtol, atol, out);
            continue;
        }
        for (std::size_t i = start; i < end; ++i) {
            if (!element_bad(t, raw_bits(t, got, i), raw_bits(t, ref, i), rtol, atol, out))
                continue;
            if (out.bad++ == 0) out.first_bad = i;
        }
    }
    out.ok = out.bad == 0;
    if (!out.ok)
        out.message = describe(t, out, raw_bits(t, got, out.first_bad),
                               raw_bits(t, ref, out.first_bad), buffer_name);
    return out;
}

}  // namespace hone
