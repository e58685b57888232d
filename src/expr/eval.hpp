// Evaluation of a syntax tree, and the value checks that operators and functions share.
#pragma once
#include "expr/node.hpp"

namespace hone::expr_detail {

value eval_node(const node& n, const bindings& scope, const source_pos& base, std::string_view text);

// Booleans count as 0/1; strings are refused with a message naming `what`.
bool is_number(const value& v);
double real_of(const value& v, const site& at, const char* what);
int64_t int_of(const value& v, const site& at, const char* what);  // reals are refused
bool truth_of(const value& v, const site& at, const char* what);
// A finite real, or an error: inf and nan never leave an expression.
value finite(double d, const site& at);

}  // namespace hone::expr_detail
