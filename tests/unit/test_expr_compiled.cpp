// The compiled form of expressions: the same values and the same errors as the tree evaluator,
// on hand-picked expressions and on many random ones.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <random>
#include <string>

#include "expr/compiled.hpp"
#include "hone/expr.hpp"

using namespace hone;

namespace {

const source_pos expr_at{"t.yaml", 3, 10};

// Parameters (slots) and constants (problem sizes, device attributes), as the space uses them.
const std::vector<std::string> slot_names = {"A", "B", "F", "H", "S", "Z"};
const bindings constants = {{"N", int64_t{1000}},
                            {"BIG", INT64_MAX},
                            {"SMALL", INT64_MIN},
                            {"HALF", 0.5},
                            {"MEM", std::string("managed")},
                            {"ZERO", int64_t{0}},
                            {"ON", true}};

struct both {
    string_table strings;
    std::vector<slot_value> slots;
    bindings scope = constants;

    explicit both(const std::vector<value>& slot_values) {
        for (std::size_t i = 0; i < slot_names.size(); ++i) {
            slots.push_back(to_slot(slot_values[i], strings));
            scope[slot_names[i]] = slot_values[i];
        }
    }

    // "value: ..." or "error: file:line:col: message": equal when both evaluators agree.
    std::string tree(const std::string& text, bool as_bool) const {
        try {
            const expression e = expression::parse(text, expr_at);
            return as_bool ? fmt::format("bool: {}", e.eval_bool(scope))
                           : "value: " + describe(e.eval(scope));
        } catch (const input_error& err) {
            return std::string("error: ") + err.what();
        }
    }
    std::string compiled(const std::string& text, bool as_bool) {
        try {
            const expression e = expression::parse(text, expr_at);
            const compiled_expression c(e, slot_names, constants, strings);
            return as_bool ? fmt::format("bool: {}", c.eval_bool(slots.data()))
                           : "value: " + describe(c.eval(slots.data()));
        } catch (const input_error& err) {
            return std::string("error: ") + err.what();
        }
    }
    static std::string describe(const value& v) {
        return fmt::format("{} {}", type_name(v), display_text(v));
    }
};

const std::vector<value> default_slots = {int64_t{256}, int64_t{-7},           true,
                                          0.25,         std::string("device"), int64_t{0}};

void same(const std::string& text) {
    both b(default_slots);
    INFO(text);
    CHECK(b.compiled(text, false) == b.tree(text, false));
    CHECK(b.compiled(text, true) == b.tree(text, true));
}

// Random expression text over the slots, the constants and literals of every type.
class generator {
  public:
    explicit generator(uint64_t seed) : rng_(seed) {}

    std::string expr(int depth) {
        const int pick = depth <= 0 ? static_cast<int>(below(3)) : static_cast<int>(below(14));
        switch (pick) {
            case 0:
                return literal();
            case 1:
                return name();
            case 2:
                return name();
            case 3:
            case 4:
                return paren(expr(depth - 1) + " " + binary_op() + " " + expr(depth - 1));
            case 5:
                return paren(expr(depth - 1) + " " + comparison_op() + " " + expr(depth - 1) + " " +
                             comparison_op() + " " + expr(depth - 1));
            case 6:
                return paren(unary_op() + expr(depth - 1));
            case 7:
                return paren(expr(depth - 1) + " ? " + expr(depth - 1) + " : " + expr(depth - 1));
            case 8:
                return paren("not " + expr(depth - 1));
            case 9:
                return call(depth);
            case 10:
                return paren(expr(depth - 1) + (below(2) ? " and " : " && ") + expr(depth - 1));
            case 11:
                return paren(expr(depth - 1) + (below(2) ? " or " : " || ") + expr(depth - 1));
            case 12:
                return expr(depth - 1) + " " + binary_op() + " " + expr(depth - 1);  // precedence
            default:
                return paren(expr(depth - 1) + " ** " + small_int());
        }
    }

  private:
    uint64_t below(uint64_t n) { return rng_() % n; }
    std::string paren(const std::string& s) { return "(" + s + ")"; }
    std::string small_int() { return std::to_string(static_cast<int>(below(7)) - 2); }
    std::string literal() {
        static const char* const pool[] = {
            "0",     "1",          "2",           "3",
            "-1",    "7",          "1024",        "9223372036854775807",
            "0.5",   "2.0",        "1e300",       "true",
            "false", "\"device\"", "\"managed\"", "\"x\""};
        return pool[below(std::size(pool))];
    }
    std::string name() {
        static const char* const pool[] = {"A",   "B",     "F",    "H",   "S",    "Z", "N",
                                           "BIG", "SMALL", "HALF", "MEM", "ZERO", "ON"};
        return pool[below(std::size(pool))];
    }
    std::string binary_op() {
        static const char* const pool[] = {"+", "-", "*", "/",  "//", "%",  "<<", ">>", "&",
                                           "^", "|", "<", "<=", ">",  ">=", "==", "!="};
        return pool[below(std::size(pool))];
    }
    std::string comparison_op() {
        static const char* const pool[] = {"<", "<=", ">", ">=", "==", "!="};
        return pool[below(std::size(pool))];
    }
    std::string unary_op() {
        static const char* const pool[] = {"-", "+", "!", "~"};
        return pool[below(std::size(pool))];
    }
    std::string call(int depth) {
        static const char* const one[] = {"abs",     "ceil", "float", "floor", "int",
                                          "is_pow2", "log2", "pow2",  "sqrt"};
        switch (below(4)) {
            case 0:
                return fmt::format("{}({})", one[below(std::size(one))], expr(depth - 1));
            case 1:
                return fmt::format("ceil_div({}, {})", expr(depth - 1), expr(depth - 1));
            case 2:
                return fmt::format("min({}, {}, {})", expr(depth - 1), expr(depth - 1),
                                   expr(depth - 1));
            default:
                return fmt::format("max({}, {})", expr(depth - 1), expr(depth - 1));
        }
    }
    std::mt19937_64 rng_;
};

}  // namespace

TEST_CASE("compiled expressions: the tree evaluator's values") {
    for (const char* text : {"A / 3",
                             "B / 2",
                             "B // 2",
                             "B % 3",
                             "A * N + 1",
                             "F + 1",
                             "-F",
                             "+F",
                             "!Z",
                             "not Z",
                             "H * 4",
                             "A <= 1024",
                             "S == 'device'",
                             "S != MEM",
                             "MEM == \"managed\"",
                             "F ? A : B",
                             "Z ? 1 : 2.5",
                             "32 <= A * 2 <= 1024",
                             "1 < 2 < 3 == 3",
                             "A > 0 and B < 0 or Z",
                             "min(A, B, N)",
                             "max(A, H)",
                             "ceil_div(N, A)",
                             "ceil_div(B, 2)",
                             "is_pow2(A)",
                             "log2(A)",
                             "log2(H)",
                             "sqrt(A)",
                             "2 ** 10",
                             "2 ** -1",
                             "(-2) ** 3",
                             "-2 ** 2",
                             "2 ** 3 ** 2",
                             "7.5 // 2",
                             "N / ZERO == 0 or true",
                             "Z != 0 && N / Z > 1",
                             "ZERO == 0 || N / ZERO > 1",
                             "F ? 1 : N / Z",
                             "S",
                             "H",
                             "12 * 1024",
                             "A % (B * 2) == 0",
                             "not (A == 256 and B == -7)",
                             "1 << 22",
                             "A >> 3",
                             "B >> 1",
                             "A & (A - 1)",
                             "A | 1 ^ 3",
                             "~A",
                             "~F",
                             "(A & 3) == 0",
                             "A & 3 == 0"}) {
        same(text);
    }
}

TEST_CASE("compiled expressions: the tree evaluator's errors, at the same column") {
    for (const char* text : {"1 + N / Z",
                             "N % Z",
                             "H / 0",
                             "BIG + 1",
                             "2 * (BIG - 1)",
                             "1 - SMALL",
                             "SMALL / -1",
                             "-SMALL",
                             "SMALL // -1",
                             "abs(SMALL)",
                             "A + NB",
                             "S + 1",
                             "S < \"z\"",
                             "S == 1",
                             "N % H",
                             "H && 1",
                             "H and 1",
                             "not H",
                             "S ? 1 : 2",
                             "log2(Z)",
                             "log2(-1.0)",
                             "pow2(63)",
                             "is_pow2(H)",
                             "ceil_div(N, Z)",
                             "sqrt(-1)",
                             "int(1e300)",
                             "1e300 * 1e300",
                             "1 + !S",
                             "2 ** 64",
                             "0 ** -1",
                             "H",
                             "S",
                             "32 <= S <= 64",
                             "1 < 2 < S",
                             "A // Z",
                             "H // 0.0",
                             "(-8.0) ** 0.5",
                             "1 << 63",
                             "BIG << 1",
                             "A << -1",
                             "A >> -1",
                             "H & 1",
                             "S | 1",
                             "~H"}) {
        same(text);
    }
}

TEST_CASE("compiled expressions agree with the tree evaluator on random expressions") {
    generator gen(20251123);
    const std::vector<std::vector<value>> slot_sets = {
        default_slots,
        {int64_t{0}, INT64_MIN, false, -2.5, std::string("managed"), int64_t{1}},
        {INT64_MAX, int64_t{1}, true, 0.0, std::string("x"), int64_t{-1}},
    };
    int errors = 0, values = 0;
    for (int i = 0; i < 6000; ++i) {
        const std::string text = gen.expr(1 + i % 5);
        for (const auto& slots : slot_sets) {
            both b(slots);
            const std::string tree = b.tree(text, false);
            INFO(text);
            CHECK(b.compiled(text, false) == tree);
            CHECK(b.compiled(text, true) == b.tree(text, true));
            (tree.rfind("error", 0) == 0 ? errors : values)++;
        }
    }
    // Both outcomes are exercised, not only one of them.
    CHECK(errors > 1000);
    CHECK(values > 1000);
}

TEST_CASE("compiled expressions: slots hide nothing they should not, and unknown names fall back") {
    string_table strings;
    const expression e = expression::parse("A + N", expr_at);
    const compiled_expression c(e, {"A"}, {{"N", int64_t{5}}}, strings);
    CHECK(c.slots_used() == std::vector<uint32_t>{0});
    const slot_value slots[] = {slot_value::of_int(3)};
    CHECK(c.eval(slots) == value(int64_t{8}));
    const compiled_expression unknown(expression::parse("A + Q", expr_at), {"A"},
                                      {{"N", int64_t{5}}}, strings);
    CHECK_THROWS_WITH_AS(unknown.eval(slots), "t.yaml:3:14: unknown name 'Q' (known: A, N)",
                         input_error);
    // Falling back, a string literal or constant can still be the result (until the fix, a
    // logic_error: the string was in no table).
    const compiled_expression literal(expression::parse("A > 5 ? Q : 'text'", expr_at), {"A"},
                                      {{"N", int64_t{5}}}, strings);
    CHECK(literal.eval(slots) == value(std::string("text")));
    const compiled_expression constant(expression::parse("A > 5 ? Q : MEM", expr_at), {"A"},
                                       {{"MEM", std::string("managed")}}, strings);
    CHECK(constant.eval(slots) == value(std::string("managed")));
}
