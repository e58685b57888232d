// Evaluation of a syntax tree, and the value checks that operators and functions share.
#pragma once
#include "expr/node.hpp"

namespace hone::expr_detail {

value eval_node(const node& n, const bindings& scope, const source_pos& base,
                std::string_view text);

// One operator applied to evaluated operands, with the tree evaluator's errors; `at` is the
// operator's node. The compiled form (expr/compiled.hpp) calls these off its fast path, so that
// both evaluators agree on every value and every message.
value apply_binary(op_code op, const value& a, const value& b, const site& at);  // not && ||
value apply_unary(op_code op, const value& a, const site& at);
// How a logical operator is spelled in messages: "&&" or "and", "||" or "or", "!" or "not".
const char* logical_spelling(const node& n);

// Booleans count as 0/1; strings are refused with a message naming `what`.
bool is_number(const value& v);
double real_of(const value& v, const site& at, const char* what);
int64_t int_of(const value& v, const site& at, const char* what);  // reals are refused
bool truth_of(const value& v, const site& at, const char* what);
// A finite real, or an error: inf and nan never leave an expression.
value finite(double d, const site& at);

}  // namespace hone::expr_detail
