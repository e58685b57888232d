// The built-in functions of the expression language.
#pragma once
#include <string_view>
#include <vector>

#include "expr/node.hpp"

namespace hone::expr_detail {

struct function_info {
    std::string_view name;
    int min_args;
    int max_args;
};

// Index into the function table, or -1.
int find_function(std::string_view name);
const function_info& function_at(int index);
std::string function_names();  // "abs, ceil, ..." for error messages
value call_function(int index, const std::vector<value>& args, const site& at);

}  // namespace hone::expr_detail
