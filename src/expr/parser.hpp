// Recursive-descent parser: tokens to a syntax tree.
#pragma once
#include <string_view>

#include "expr/node.hpp"

namespace hone::expr_detail {

// Throws input_error at the column of the first token that does not fit the grammar.
node_ptr parse_tree(std::string_view text, const source_pos& pos);

}  // namespace hone::expr_detail
