// A parameter or problem value: integer, real, boolean or string.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <variant>

namespace hone {

using value = std::variant<int64_t, double, bool, std::string>;

// Text used for "-DNAME=<text>": booleans as 1/0 (they work in #if and as ints).
std::string define_text(const value& v);
// Text substituted for {NAME} in a kernel name expression: booleans as true/false.
std::string template_text(const value& v);
// Text for reports and the YAML reproduction snippet (strings quoted).
std::string display_text(const value& v);
const char* type_name(const value& v);

// Named values visible to expressions: problem sizes, device attributes, parameters.
using bindings = std::map<std::string, value, std::less<>>;

}  // namespace hone
