#include "hone/elem_type.hpp"

#include <array>
#include <utility>

namespace hone {
namespace {

struct type_info {
    elem_type type;
    std::size_t size;
    bool is_float;
    const char* name;
};

constexpr std::array<type_info, 12> types = {{
    {elem_type::f16, 2, true, "half"},
    {elem_type::bf16, 2, true, "bfloat16"},
    {elem_type::f32, 4, true, "float"},
    {elem_type::f64, 8, true, "double"},
    {elem_type::i8, 1, false, "int8"},
    {elem_type::i16, 2, false, "int16"},
    {elem_type::i32, 4, false, "int32"},
    {elem_type::i64, 8, false, "int64"},
    {elem_type::u8, 1, false, "uint8"},
    {elem_type::u16, 2, false, "uint16"},
    {elem_type::u32, 4, false, "uint32"},
    {elem_type::u64, 8, false, "uint64"},
}};

// Spellings people use in YAML: short forms, C/C++ and CUDA type names.
constexpr std::pair<std::string_view, elem_type> aliases[] = {
    {"f16", elem_type::f16},
    {"float16", elem_type::f16},
    {"__half", elem_type::f16},
    {"bf16", elem_type::bf16},
    {"__nv_bfloat16", elem_type::bf16},
    {"f32", elem_type::f32},
    {"float32", elem_type::f32},
    {"f64", elem_type::f64},
    {"float64", elem_type::f64},
    {"i8", elem_type::i8},
    {"int8_t", elem_type::i8},
    {"signed char", elem_type::i8},
    {"i16", elem_type::i16},
    {"int16_t", elem_type::i16},
    {"short", elem_type::i16},
    {"i32", elem_type::i32},
    {"int32_t", elem_type::i32},
    {"int", elem_type::i32},
    {"i64", elem_type::i64},
    {"int64_t", elem_type::i64},
    {"long long", elem_type::i64},
    {"u8", elem_type::u8},
    {"uint8_t", elem_type::u8},
    {"unsigned char", elem_type::u8},
    {"u16", elem_type::u16},
    {"uint16_t", elem_type::u16},
    {"unsigned short", elem_type::u16},
    {"u32", elem_type::u32},
    {"uint32_t", elem_type::u32},
    {"unsigned", elem_type::u32},
    {"unsigned int", elem_type::u32},
    {"u64", elem_type::u64},
    {"uint64_t", elem_type::u64},
    {"unsigned long long", elem_type::u64},
};

const type_info& info(elem_type t) {
    return types[static_cast<std::size_t>(t)];
}

}  // namespace

std::size_t elem_size(elem_type t) {
    return info(t).size;
}
bool is_float(elem_type t) {
    return info(t).is_float;
}
const char* elem_name(elem_type t) {
    return info(t).name;
}

std::optional<elem_type> parse_elem_type(std::string_view s) {
    for (const auto& t : types)
        if (s == t.name) return t.type;
    for (const auto& [name, type] : aliases)
        if (s == name) return type;
    return std::nullopt;
}

}  // namespace hone
