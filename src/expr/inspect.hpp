// The structure of an expression, for tools that translate from other languages (the T1
// importer checks where Python's true division and hone's integer division could differ).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace hone::expr_detail {

struct division {
    std::string left, right;  // operand texts, as written
};

// Every '/' of `text` (which must parse), outermost first.
std::vector<division> divisions(std::string_view text);

}  // namespace hone::expr_detail
