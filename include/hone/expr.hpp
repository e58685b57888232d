// The expression language of search configs (constraints, counts, launch sizes, metrics).
//
// Precedence follows Python, from the loosest: ?: (C's conditional), || or, && and, not,
// comparisons (< <= > >= == != on one level, chained as in Python: `32 <= a * b <= 1024` is
// `32 <= a * b and a * b <= 1024`), + -, * / // %, unary - + !, and ** (right-associative,
// tighter than a unary operator on its left: -2 ** 2 is -4; 2 ** -1 is 0.5). `and`, `or` and
// `not` are `&&`, `||` and `!` spelled as Python does, with Python's precedence for `not`
// (`not a == b` is `not (a == b)`; `!a == b` is `(!a) == b`). They take booleans or integers
// and give booleans. In hone's first builds comparisons followed C (== and != bound looser
// than <, and `a < b < c` compared the boolean `a < b` with c): a constraint written for them
// may read differently now.
// Literals: integers, reals, true/false, "strings". Functions: min max ceil_div log2 is_pow2
// abs pow2 (2^x) floor ceil sqrt int float. Integer '/' truncates like C, '//' rounds down like
// Python, '%' takes the sign of the dividend like C; ** of integers is an integer, except for a
// negative exponent (a real). Division or modulo by zero and integer overflow are errors.
// Strings compare with == and !=. Booleans act as 0/1 in arithmetic; mixing an integer with a
// real gives a real. floor, ceil and int return integers; log2 of an integer is the integer
// floor. Nesting deeper than 200 is refused.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hone/error.hpp"
#include "hone/value.hpp"

namespace hone {

namespace expr_detail {
struct node;
}
class compiled_expression;

class expression {
  public:
    expression();  // the constant 0
    // Parses `text`; `pos` is where the text starts in its file, so errors point at the
    // exact column. Throws input_error.
    static expression parse(std::string_view text, source_pos pos);
    static expression constant(value v);

    // Throws input_error (at this expression's position) for unknown names, type errors,
    // division by zero, overflow.
    value eval(const bindings& scope) const;
    int64_t eval_int(const bindings& scope) const;  // error if not an integer (bools -> 0/1)
    double eval_real(const bindings& scope) const;
    bool eval_bool(const bindings& scope) const;

    std::vector<std::string> names() const;  // identifiers referenced, sorted, unique
    // Where `name` first occurs in the text (this expression's position if it does not).
    source_pos name_pos(std::string_view name) const;
    const std::string& text() const { return text_; }  // serialisable: parse(text()) round-trips
    const source_pos& pos() const { return pos_; }

  private:
    friend class compiled_expression;  // compiles the tree (src/expr/compiled.hpp)
    std::shared_ptr<const expr_detail::node> root_;
    std::string text_;
    source_pos pos_;
};

}  // namespace hone
