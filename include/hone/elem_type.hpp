// Element types of buffers and scalar kernel arguments.
#pragma once
#include <cstddef>
#include <optional>
#include <string_view>

namespace hone {

enum class elem_type { f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64 };

std::size_t elem_size(elem_type t);
bool is_float(elem_type t);
const char* elem_name(elem_type t);  // canonical: half bfloat16 float double int8 ... uint64
// Accepts the canonical names and aliases (float32, float64, int, long long, f32, ...).
std::optional<elem_type> parse_elem_type(std::string_view s);

}  // namespace hone
