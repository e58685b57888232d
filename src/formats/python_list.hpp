// The small part of Python that T1 files use in "Values" and expressions.
#pragma once
#include <string>
#include <vector>

#include "hone/error.hpp"
#include "hone/value.hpp"

namespace hone {

// A T1 "Values" string: a Python list display ([1, 2, 4]), a list comprehension over range()
// ([32 * i for i in range(1, 32)], with an optional `if`), list(range(...)), and their
// concatenation with +. Elements are hone expressions (Python's arithmetic, True and False).
// Evaluated without Python; anything else is an input_error at `pos`.
std::vector<value> eval_python_list(const std::string& text, const source_pos& pos);

// Python's True and False as hone's true and false, outside string literals.
std::string python_to_hone(const std::string& text);

// A name as Python spells one: letters, digits and '_', not starting with a digit.
bool is_python_identifier(const std::string& s);

}  // namespace hone
