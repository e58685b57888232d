// Output checking against a reference: pure functions, no CUDA.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "hone/elem_type.hpp"

namespace hone {

struct verify_outcome {
    bool ok = true;
    std::size_t checked = 0;
    std::size_t bad = 0;        // elements outside tolerance, NaN, or unwritten (still poison)
    std::size_t first_bad = 0;  // index of the first bad element
    std::size_t nan_count = 0;  // NaN written by the kernel (not poison)
    std::size_t unwritten = 0;  // still holding the poison pattern
    double max_abs_err = 0, max_rel_err = 0;
    // Empty when ok, else "buffer y: 12 of 1048576 elements differ (first at 17: got 1.5,
    // expected 2; max abs err 0.5; 3 NaN; 4 unwritten)", the last three parts when they apply.
    std::string message;
};

// Writes the poison pattern: quiet NaN for floating types (with a payload of 0xA5 bits that a
// computed NaN does not have, so that unwritten elements can be told apart), 0xA5 bytes for
// integers.
void fill_poison(elem_type t, void* data, std::size_t count);
// One element of that pattern, in the low elem_size(t) bytes.
uint64_t poison_bits(elem_type t);
// Element-wise |got - ref| <= atol + rtol * |ref|; NaN in got fails unless ref is NaN at the
// same index; integer types compare exactly (an integer still equal to poison counts as unwritten
// only if the reference differs).
verify_outcome compare_buffers(elem_type t, const void* got, const void* ref, std::size_t count,
                               double rtol, double atol, const std::string& buffer_name);

}  // namespace hone
