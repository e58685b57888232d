#include "expr/eval.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <utility>

#include "expr/functions.hpp"

namespace hone::expr_detail {
namespace {

std::string known_names(const bindings& scope) {
    std::string out;
    for (const auto& [name, v] : scope) out += (out.empty() ? "" : ", ") + name;
    return out.empty() ? "none" : out;
}

const char* spelling(op_code op) {
    static constexpr std::pair<op_code, const char*> table[] = {
        {op_code::add, "+"},     {op_code::sub, "-"},     {op_code::mul, "*"},
        {op_code::div, "/"},     {op_code::mod, "%"},     {op_code::floordiv, "//"},
        {op_code::pow, "**"},    {op_code::shl, "<<"},    {op_code::shr, ">>"},
        {op_code::bit_and, "&"}, {op_code::bit_xor, "^"}, {op_code::bit_or, "|"}};
    for (const auto& [code, text] : table)
        if (code == op) return text;
    return "";
}

// Python's floor division: the quotient rounded towards minus infinity.
int64_t floor_div(int64_t a, int64_t b) {
    const int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

value integer_pow(int64_t a, int64_t b, const site& at) {
    if (b < 0) {  // Python gives a real, and refuses 0 to a negative power
        if (a == 0) at.fail(fmt::format("division by zero in '{}'", at.snippet()));
        return finite(std::pow(static_cast<double>(a), static_cast<double>(b)), at);
    }
    if (a == 0 || a == 1) return b == 0 ? 1 : a;
    if (a == -1) return b % 2 == 0 ? 1 : -1;
    int64_t r = 1;  // |a| >= 2 overflows within 63 steps, so the loop is short
    for (int64_t k = 0; k < b; ++k)
        if (__builtin_mul_overflow(r, a, &r))
            at.fail(fmt::format("integer overflow in '{}'", at.snippet()));
    return r;
}

// Python's shifts on 64-bit integers: a negative count is an error, >> rounds towards minus
// infinity, and a << that loses bits is an overflow.
value shift(op_code op, int64_t a, int64_t b, const site& at) {
    if (b < 0) at.fail(fmt::format("negative shift count in '{}'", at.snippet()));
    if (op == op_code::shr) return b >= 63 ? (a < 0 ? -1 : 0) : a >> b;
    if (a == 0) return int64_t{0};
    if (b > 63 || (a >> (63 - b)) != (a < 0 ? -1 : 0))
        at.fail(fmt::format("integer overflow in '{}'", at.snippet()));
    return static_cast<int64_t>(static_cast<uint64_t>(a) << b);
}

value integer_arith(op_code op, int64_t a, int64_t b, const site& at) {
    int64_t r = 0;
    bool overflow = false;
    switch (op) {
        case op_code::add:
            overflow = __builtin_add_overflow(a, b, &r);
            break;
        case op_code::sub:
            overflow = __builtin_sub_overflow(a, b, &r);
            break;
        case op_code::mul:
            overflow = __builtin_mul_overflow(a, b, &r);
            break;
        case op_code::div:
        case op_code::mod:
        case op_code::floordiv:
            if (b == 0)
                at.fail(fmt::format("{} by zero in '{}'",
                                    op == op_code::mod ? "modulo" : "division", at.snippet()));
            // INT64_MIN / -1 overflows; INT64_MIN % -1 is 0 but undefined behaviour in C++.
            if (b == -1) return op == op_code::mod ? 0 : integer_arith(op_code::sub, 0, a, at);
            r = op == op_code::div ? a / b : op == op_code::mod ? a % b : floor_div(a, b);
            break;
        case op_code::pow:
            return integer_pow(a, b, at);
        case op_code::shl:
        case op_code::shr:
            return shift(op, a, b, at);
        case op_code::bit_and:
            return a & b;
        case op_code::bit_xor:
            return a ^ b;
        case op_code::bit_or:
            return a | b;
        default:
            break;
    }
    if (overflow) at.fail(fmt::format("integer overflow in '{}'", at.snippet()));
    return r;
}

value real_arith(op_code op, double a, double b, const site& at) {
    switch (op) {
        case op_code::add:
            return finite(a + b, at);
        case op_code::sub:
            return finite(a - b, at);
        case op_code::mul:
            return finite(a * b, at);
        case op_code::div:
            if (b == 0) at.fail(fmt::format("division by zero in '{}'", at.snippet()));
            return finite(a / b, at);
        case op_code::floordiv:
            if (b == 0) at.fail(fmt::format("division by zero in '{}'", at.snippet()));
            return finite(std::floor(a / b), at);
        case op_code::pow:
            if (a == 0 && b < 0) at.fail(fmt::format("division by zero in '{}'", at.snippet()));
            return finite(std::pow(a, b), at);
        default:
            at.fail(
                fmt::format("'{}' needs integers, got a real in '{}'", spelling(op), at.snippet()));
    }
}

bool compare(op_code op, const value& a, const value& b, const site& at) {
    const bool sa = std::holds_alternative<std::string>(a),
               sb = std::holds_alternative<std::string>(b);
    if (sa || sb) {
        if (!sa || !sb)
            at.fail(fmt::format("cannot compare the {} {} with the {} {} in '{}'", type_name(a),
                                display_text(a), type_name(b), display_text(b), at.snippet()));
        if (op != op_code::eq && op != op_code::ne)
            at.fail(fmt::format("strings compare only with == and != in '{}'", at.snippet()));
        return (std::get<std::string>(a) == std::get<std::string>(b)) == (op == op_code::eq);
    }
    const bool as_real = std::holds_alternative<double>(a) || std::holds_alternative<double>(b);
    auto cmp = [op](auto x, auto y) {
        switch (op) {
            case op_code::lt:
                return x < y;
            case op_code::le:
                return x <= y;
            case op_code::gt:
                return x > y;
            case op_code::ge:
                return x >= y;
            case op_code::eq:
                return x == y;
            default:
                return x != y;
        }
    };
    if (as_real) return cmp(real_of(a, at, "comparison"), real_of(b, at, "comparison"));
    return cmp(int_of(a, at, "comparison"), int_of(b, at, "comparison"));
}

value binary(const node& n, const bindings& scope, const source_pos& base, std::string_view text) {
    const site at{base, text, n};
    const value a = eval_node(*n.kids[0], scope, base, text);
    if (n.op == op_code::logical_and || n.op == op_code::logical_or) {
        const char* what = logical_spelling(n);
        const bool left = truth_of(a, at, what);
        if (left == (n.op == op_code::logical_or)) return left;  // short circuit
        return truth_of(eval_node(*n.kids[1], scope, base, text), at, what);
    }
    return apply_binary(n.op, a, eval_node(*n.kids[1], scope, base, text), at);
}

}  // namespace

value apply_binary(op_code op, const value& a, const value& b, const site& at) {
    if (op >= op_code::lt) return compare(op, a, b, at);
    const char* what = spelling(op);
    if (std::holds_alternative<double>(a) || std::holds_alternative<double>(b))
        return real_arith(op, real_of(a, at, what), real_of(b, at, what), at);
    return integer_arith(op, int_of(a, at, what), int_of(b, at, what), at);
}

value apply_unary(op_code op, const value& a, const site& at) {
    if (op == op_code::logical_not) return !truth_of(a, at, logical_spelling(at.n));
    if (op == op_code::bit_not) return ~int_of(a, at, "unary ~");
    if (const auto* d = std::get_if<double>(&a)) return op == op_code::neg ? -*d : *d;
    const int64_t i = int_of(a, at, op == op_code::neg ? "unary -" : "unary +");
    return op == op_code::neg ? integer_arith(op_code::sub, 0, i, at) : value(i);
}

const char* logical_spelling(const node& n) {
    switch (n.op) {
        case op_code::logical_and:
            return n.word ? "and" : "&&";
        case op_code::logical_or:
            return n.word ? "or" : "||";
        default:
            return n.word ? "not" : "!";
    }
}

bool is_number(const value& v) {
    return !std::holds_alternative<std::string>(v);
}

double real_of(const value& v, const site& at, const char* what) {
    if (const auto* d = std::get_if<double>(&v)) return *d;
    return static_cast<double>(int_of(v, at, what));
}

int64_t int_of(const value& v, const site& at, const char* what) {
    if (const auto* i = std::get_if<int64_t>(&v)) return *i;
    if (const auto* b = std::get_if<bool>(&v)) return *b;
    if (const auto* d = std::get_if<double>(&v))
        at.fail(fmt::format("{} needs an integer, got the real {} in '{}'", what, template_text(*d),
                            at.snippet()));
    at.fail(fmt::format("{} needs a number, got the string {} in '{}'", what, display_text(v),
                        at.snippet()));
}

bool truth_of(const value& v, const site& at, const char* what) {
    if (const auto* b = std::get_if<bool>(&v)) return *b;
    if (const auto* i = std::get_if<int64_t>(&v)) return *i != 0;
    at.fail(fmt::format("{} needs a boolean, got the {} {} in '{}'", what, type_name(v),
                        display_text(v), at.snippet()));
}

value finite(double d, const site& at) {
    if (!std::isfinite(d)) at.fail(fmt::format("'{}' has no finite real value", at.snippet()));
    return d;
}

value eval_node(const node& n, const bindings& scope, const source_pos& base,
                std::string_view text) {
    switch (n.kind) {
        case node_kind::literal:
            return n.literal;
        case node_kind::name: {
            const auto it = scope.find(n.name);
            if (it == scope.end())
                site{base, text, n}.fail(
                    fmt::format("unknown name '{}' (known: {})", n.name, known_names(scope)));
            return it->second;
        }
        case node_kind::unary:
            return apply_unary(n.op, eval_node(*n.kids[0], scope, base, text), site{base, text, n});
        case node_kind::binary:
            return binary(n, scope, base, text);
        case node_kind::conditional: {
            const bool c =
                truth_of(eval_node(*n.kids[0], scope, base, text), site{base, text, n}, "?:");
            return eval_node(*n.kids[c ? 1 : 2], scope, base, text);
        }
        case node_kind::call: {
            std::vector<value> args;
            for (const auto& k : n.kids) args.push_back(eval_node(*k, scope, base, text));
            return call_function(n.function, args, site{base, text, n});
        }
    }
    return n.literal;
}

}  // namespace hone::expr_detail
