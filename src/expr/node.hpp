// The syntax tree of an expression and the error site shared by the parser and the evaluator.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hone/error.hpp"
#include "hone/value.hpp"

namespace hone::expr_detail {

// Deep trees would overflow the stack of the recursive parser and evaluator.
constexpr int max_depth = 200;

enum class node_kind { literal, name, unary, binary, conditional, call };
// Arithmetic codes come before comparisons, comparisons before the logical ones: the
// evaluator dispatches on those ranges.
enum class op_code {
    none,
    neg,
    plus,
    logical_not,
    bit_not,
    add,
    sub,
    mul,
    div,
    mod,
    floordiv,
    pow,
    shl,
    shr,
    bit_and,
    bit_xor,
    bit_or,
    lt,
    le,
    gt,
    ge,
    eq,
    ne,
    logical_and,
    logical_or
};

struct node {
    node_kind kind = node_kind::literal;
    op_code op = op_code::none;
    int function = -1;  // call: index into the function table
    bool word = false;  // logical operator spelled as a word (and, or, not): for messages
    std::string name;   // name: the identifier
    value literal = int64_t{0};
    std::vector<std::shared_ptr<const node>> kids;
    int offset = 0;  // span in the expression text, for error positions
    int length = 0;
    int depth = 1;
};
using node_ptr = std::shared_ptr<const node>;

// Calls f on every node of the tree, parents before their children.
inline void visit(const node& n, const std::function<void(const node&)>& f) {
    f(n);
    for (const auto& k : n.kids) visit(*k, f);
}

// Calls f on every name node of the tree, in order.
inline void visit_names(const node& n, const std::function<void(const node&)>& f) {
    visit(n, [&](const node& x) {
        if (x.kind == node_kind::name) f(x);
    });
}

// `base` is where the expression text starts; errors point `offset` characters further.
inline source_pos pos_at(const source_pos& base, int offset) {
    source_pos p = base;
    if (p.column > 0) p.column += offset;
    return p;
}

// A node being evaluated: what error messages point at and quote.
struct site {
    const source_pos& base;
    std::string_view text;
    const node& n;

    std::string snippet() const { return std::string(text.substr(n.offset, n.length)); }
    [[noreturn]] void fail(const std::string& message) const {
        throw input_error(pos_at(base, n.offset), message);
    }
};

}  // namespace hone::expr_detail
