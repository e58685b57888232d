// The expression language: values, C semantics, and the column of every error.
#include <doctest/doctest.h>

#include <string>

#include "hone/expr.hpp"

using namespace hone;

namespace {

// Expressions in these tests start at line 3, column 10 of "t.yaml".
const source_pos at{"t.yaml", 3, 10};

const bindings scope = {{"N", int64_t{1000}},
                        {"BLOCK", int64_t{256}},
                        {"HALF", 0.5},
                        {"FLAG", true},
                        {"MEM", std::string("managed")},
                        {"ZERO", int64_t{0}},
                        {"BIG", INT64_MAX},
                        {"SMALL", INT64_MIN}};

value eval(const char* text) {
    return expression::parse(text, at).eval(scope);
}

// The message and column of the error that parsing or evaluating `text` raises.
std::pair<std::string, int> failure(const char* text) {
    try {
        eval(text);
    } catch (const input_error& e) {
        CHECK(e.pos().file == "t.yaml");
        CHECK(e.pos().line == 3);
        return {e.message(), e.pos().column};
    }
    FAIL("no error for ", text);
    return {};
}

void check_failure(const char* text, const std::string& message_part, int offset) {
    const auto [message, column] = failure(text);
    INFO(text, " -> ", message);
    CHECK(message.find(message_part) != std::string::npos);
    CHECK(column == at.column + offset);
}

}  // namespace

TEST_CASE("integer arithmetic follows C") {
    CHECK(eval("7 / 2") == value(int64_t{3}));
    CHECK(eval("-7 / 2") == value(int64_t{-3}));
    CHECK(eval("-7 % 3") == value(int64_t{-1}));
    CHECK(eval("7 % -3") == value(int64_t{1}));
    CHECK(eval("2 + 3 * 4 - 1") == value(int64_t{13}));
    CHECK(eval("(2 + 3) * 4") == value(int64_t{20}));
    CHECK(eval("N / BLOCK") == value(int64_t{3}));
    CHECK(eval("SMALL % -1") == value(int64_t{0}));
    CHECK(eval("--5") == value(int64_t{5}));
    CHECK(eval("+5") == value(int64_t{5}));
}

TEST_CASE("mixed integer and real promote to real") {
    CHECK(eval("N * HALF") == value(500.0));
    CHECK(eval("1 / 2.0") == value(0.5));
    CHECK(eval("1e3") == value(1000.0));
    CHECK(eval(".5 + 1") == value(1.5));
    CHECK(eval("FLAG + 1") == value(int64_t{2}));  // booleans count as 0/1
}

TEST_CASE("bitwise operators and shifts, at Python's precedence") {
    CHECK(eval("1 << 22") == value(int64_t{4194304}));
    CHECK(eval("N >> 3") == value(int64_t{125}));
    CHECK(eval("-7 >> 1") == value(int64_t{-4}));  // rounds towards minus infinity
    CHECK(eval("SMALL >> 70") == value(int64_t{-1}));
    CHECK(eval("BLOCK & (BLOCK - 1)") == value(int64_t{0}));
    CHECK(eval("6 ^ 3") == value(int64_t{5}));
    CHECK(eval("4 | 1") == value(int64_t{5}));
    CHECK(eval("~0") == value(int64_t{-1}));
    CHECK(eval("-1 << 63") == value(INT64_MIN));
    // | binds looser than ^, ^ than &, & than shifts, shifts than + and -.
    CHECK(eval("1 | 2 ^ 3 & 4 << 1 + 1") == value(int64_t{1 | (2 ^ (3 & (4 << 2)))}));
    // Bitwise operators bind tighter than comparisons (Python, not C).
    CHECK(eval("BLOCK & 255 == 0") == value(true));  // (BLOCK & 255) == 0; C reads it otherwise
    CHECK(eval("BLOCK & (255 == 0)") == value(int64_t{0}));
    CHECK(eval("1 << 2 < 5") == value(true));
    check_failure("1 << 63", "integer overflow in '1 << 63'", 0);
    check_failure("BIG << 1", "integer overflow", 0);
    check_failure("N << -1", "negative shift count in 'N << -1'", 0);
    check_failure("N >> -1", "negative shift count", 0);
    check_failure("HALF & 1", "'&' needs integers, got a real", 0);
    check_failure("MEM | 1", "| needs a number, got the string", 0);
    check_failure("~HALF", "unary ~ needs an integer, got the real 0.5", 0);
    check_failure("N & ", "expected a number, name, string or '(', got the end", 4);
}

TEST_CASE("comparisons, logic and the conditional") {
    CHECK(eval("BLOCK <= 1024") == value(true));
    CHECK(eval("BLOCK > 256") == value(false));
    CHECK(eval("HALF < 1") == value(true));
    CHECK(eval("BLOCK >= 256 && BLOCK != 512") == value(true));
    CHECK(eval("!FLAG || N == 1000") == value(true));
    CHECK(eval("MEM == \"managed\"") == value(true));
    CHECK(eval("MEM != 'device'") == value(true));
    CHECK(eval("FLAG ? 1 : 2") == value(int64_t{1}));
    CHECK(eval("ZERO ? 1 : ZERO ? 2 : 3") == value(int64_t{3}));
    CHECK(eval("\"a\\\"b\"") == value(std::string("a\"b")));
    // Short circuit: the right side would divide by zero.
    CHECK(eval("ZERO != 0 && N / ZERO > 1") == value(false));
    CHECK(eval("ZERO == 0 || N / ZERO > 1") == value(true));
    CHECK(eval("FLAG ? 1 : N / ZERO") == value(int64_t{1}));
}

TEST_CASE("functions") {
    CHECK(eval("min(3, 1, 2)") == value(int64_t{1}));
    CHECK(eval("max(3, 1.5)") == value(3.0));
    CHECK(eval("ceil_div(N, BLOCK)") == value(int64_t{4}));
    CHECK(eval("ceil_div(1024, 256)") == value(int64_t{4}));
    CHECK(eval("ceil_div(-7, 2)") == value(int64_t{-3}));
    CHECK(eval("ceil_div(-7, -2)") == value(int64_t{4}));
    CHECK(eval("log2(1)") == value(int64_t{0}));
    CHECK(eval("log2(1000)") == value(int64_t{9}));
    CHECK(eval("log2(8.0)") == value(3.0));
    CHECK(eval("is_pow2(BLOCK)") == value(true));
    CHECK(eval("is_pow2(N)") == value(false));
    CHECK(eval("is_pow2(0)") == value(false));
    CHECK(eval("abs(-4)") == value(int64_t{4}));
    CHECK(eval("abs(-HALF)") == value(0.5));
    CHECK(eval("pow2(10)") == value(int64_t{1024}));
    CHECK(eval("floor(2.7)") == value(int64_t{2}));
    CHECK(eval("ceil(2.1)") == value(int64_t{3}));
    CHECK(eval("floor(-2.5)") == value(int64_t{-3}));
    CHECK(eval("sqrt(16)") == value(4.0));
    CHECK(eval("int(-2.9)") == value(int64_t{-2}));
    CHECK(eval("int(FLAG)") == value(int64_t{1}));
    CHECK(eval("float(3)") == value(3.0));
}

TEST_CASE("typed accessors") {
    const auto e = [](const char* t) { return expression::parse(t, at); };
    CHECK(e("FLAG").eval_int(scope) == 1);
    CHECK(e("HALF * 4").eval_real(scope) == 2.0);
    CHECK(e("N").eval_bool(scope));
    CHECK_THROWS_WITH_AS(e("HALF").eval_int(scope), doctest::Contains("expected an integer"),
                         input_error);
    CHECK_THROWS_WITH_AS(e("MEM").eval_real(scope), doctest::Contains("expected a number"),
                         input_error);
    CHECK_THROWS_WITH_AS(e("HALF").eval_bool(scope), doctest::Contains("expected a boolean"),
                         input_error);
    CHECK(expression().eval_int(scope) == 0);
}

TEST_CASE("evaluation errors point at the sub-expression") {
    check_failure("1 + N / ZERO", "division by zero in 'N / ZERO'", 4);
    check_failure("N % ZERO", "modulo by zero", 0);
    check_failure("1.5 / 0", "division by zero", 0);
    check_failure("BIG + 1", "integer overflow in 'BIG + 1'", 0);
    check_failure("2 * (BIG - 1)", "integer overflow", 0);
    check_failure("1 - SMALL", "integer overflow", 0);
    check_failure("SMALL / -1", "integer overflow", 0);
    check_failure("-SMALL", "integer overflow", 0);
    check_failure("abs(SMALL)", "integer overflow", 0);
    check_failure("BLOCK + NB", "unknown name 'NB' (known: BIG, BLOCK, FLAG", 8);
    check_failure("MEM + 1", "needs a number, got the string \"managed\"", 0);
    check_failure("MEM < \"z\"", "strings compare only with == and !=", 0);
    check_failure("MEM == 1", "cannot compare the string \"managed\" with the integer 1", 0);
    check_failure("N % HALF", "'%' needs integers", 0);
    check_failure("HALF && 1", "&& needs a boolean, got the real", 0);
    check_failure("MEM ? 1 : 2", "?: needs a boolean", 0);
    check_failure("log2(ZERO)", "log2 of 0", 0);
    check_failure("log2(-1.0)", "expected a positive value", 0);
    check_failure("pow2(63)", "expected an exponent in 0 .. 62", 0);
    check_failure("is_pow2(HALF)", "is_pow2 needs an integer", 0);
    check_failure("ceil_div(N, ZERO)", "division by zero", 0);
    check_failure("sqrt(-1)", "expected a value >= 0", 0);
    check_failure("int(1e300)", "does not fit a 64-bit integer", 0);
    check_failure("1e300 * 1e300", "has no finite real value", 0);
    check_failure("1 + !MEM", "! needs a boolean", 4);
}

TEST_CASE("parse errors point at the exact column") {
    check_failure("", "expected an expression, got nothing", 0);
    check_failure("1 +", "expected a number, name, string or '(', got the end", 3);
    check_failure("(1 + 2", "expected ')' to close '('", 6);
    check_failure("1 2", "unexpected '2' after the expression", 2);
    check_failure("N # 2", "unexpected character '#'", 2);
    check_failure("\"abc", "unterminated string", 0);
    check_failure("99999999999999999999", "integer literal 99999999999999999999 is out of range",
                  0);
    check_failure("1e999", "real literal 1e999 is out of range", 0);
    check_failure("12ab", "malformed number '12a'", 0);
    check_failure("1e+", "expected digits after 'e'", 0);
    check_failure("  foo(1)", "unknown function 'foo' (known: abs, ceil", 2);
    check_failure("min(1)", "min() takes 2 to 16 arguments, got 1", 0);
    check_failure("log2(1, 2)", "log2() takes 1 argument, got 2", 0);
    check_failure("FLAG ? 1", "expected ':' in 'condition ? a : b', got the end", 8);
    check_failure("min(1, 2", "expected ')' to close the argument list", 8);
}

TEST_CASE("nesting is limited") {
    const std::string parens = std::string(300, '(') + "1" + std::string(300, ')');
    CHECK_THROWS_WITH_AS(expression::parse(parens, at), doctest::Contains("nested too deeply"),
                         input_error);
    std::string chain = "1";
    for (int i = 0; i < 300; ++i) chain += "+1";
    CHECK_THROWS_WITH_AS(expression::parse(chain, at), doctest::Contains("nested too deeply"),
                         input_error);
    std::string ok = "1";
    for (int i = 0; i < 150; ++i) ok += "+1";
    CHECK(expression::parse(ok, at).eval_int({}) == 151);
}

TEST_CASE("names, positions and text round trip") {
    const auto e = expression::parse("max(BLOCK, N) / BLOCK + sm_count", at);
    CHECK(e.names() == std::vector<std::string>{"BLOCK", "N", "sm_count"});
    CHECK(e.name_pos("N").column == at.column + 11);
    CHECK(e.name_pos("missing").column == at.column);
    bindings with_sm = scope;
    with_sm["sm_count"] = int64_t{132};
    CHECK(expression::parse(e.text(), at).eval(with_sm) == e.eval(with_sm));
    for (const value& v : {value(int64_t{-5}), value(INT64_MIN), value(2.0), value(0.1),
                           value(true), value(std::string("long \"long\""))}) {
        const expression c = expression::constant(v);
        CHECK(c.eval({}) == v);
        CHECK(expression::parse(c.text(), at).eval({}) == v);
    }
}
