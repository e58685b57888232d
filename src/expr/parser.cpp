#include "expr/parser.hpp"

#include <fmt/format.h>

#include "expr/functions.hpp"
#include "expr/lexer.hpp"

namespace hone::expr_detail {
namespace {

struct binary_op {
    std::string_view text;
    op_code op;
};
using binary_level = std::initializer_list<binary_op>;

// Python's precedence, from the loosest to the tightest: or, and, not, comparisons (one level,
// chained), |, ^, &, << >>, + -, * / // %, unary - + ! ~, **. The conditional ?: binds loosest of
// all. As in Python, `N & 3 == 0` is `(N & 3) == 0` (C binds & ^ | looser than comparisons).
const binary_level or_ops = {{"||", op_code::logical_or}, {"or", op_code::logical_or}};
const binary_level and_ops = {{"&&", op_code::logical_and}, {"and", op_code::logical_and}};
const binary_level comparison_ops = {{"<", op_code::lt},  {"<=", op_code::le}, {">", op_code::gt},
                                     {">=", op_code::ge}, {"==", op_code::eq}, {"!=", op_code::ne}};
const binary_level bit_or_ops = {{"|", op_code::bit_or}};
const binary_level bit_xor_ops = {{"^", op_code::bit_xor}};
const binary_level bit_and_ops = {{"&", op_code::bit_and}};
const binary_level shift_ops = {{"<<", op_code::shl}, {">>", op_code::shr}};
const binary_level additive_ops = {{"+", op_code::add}, {"-", op_code::sub}};
const binary_level multiplicative_ops = {
    {"*", op_code::mul}, {"/", op_code::div}, {"//", op_code::floordiv}, {"%", op_code::mod}};

class parser {
  public:
    parser(std::string_view text, const source_pos& pos) : tokens_(lex(text, pos)), pos_(pos) {}

    node_ptr run() {
        if (peek().kind == token_kind::end) fail(peek(), "expected an expression, got nothing");
        node_ptr root = conditional();
        if (peek().kind != token_kind::end)
            fail(peek(), fmt::format("unexpected '{}' after the expression", peek().text));
        return root;
    }

  private:
    // Counts recursion, so that "((((..." cannot exhaust the stack.
    struct nesting {
        parser& p;
        explicit nesting(parser& owner) : p(owner) {
            if (++p.nesting_ > max_depth)
                p.fail(p.peek(), fmt::format("expression nested too deeply (limit {})", max_depth));
        }
        ~nesting() { --p.nesting_; }
    };

    [[noreturn]] void fail(const token& t, const std::string& message) const {
        throw input_error(pos_at(pos_, t.offset), message);
    }
    const token& peek() const { return tokens_[at_]; }
    bool is_punct(std::string_view p) const {
        return peek().kind == token_kind::punct && peek().text == p;
    }
    std::string describe(const token& t) const {
        return t.kind == token_kind::end ? "the end" : fmt::format("'{}'", t.text);
    }

    void expect(std::string_view p, const char* context) {
        if (!is_punct(p))
            fail(peek(), fmt::format("expected '{}' {}, got {}", p, context, describe(peek())));
        ++at_;
    }

    node_ptr make(node n, int end) {
        n.length = end - n.offset;
        for (const auto& k : n.kids) n.depth = std::max(n.depth, k->depth + 1);
        if (n.depth > max_depth)
            fail(tokens_[at_ > 0 ? at_ - 1 : 0],
                 fmt::format("expression nested too deeply (limit {})", max_depth));
        return std::make_shared<const node>(std::move(n));
    }
    int end_of_previous() const {
        return tokens_[at_ - 1].offset + static_cast<int>(tokens_[at_ - 1].text.size());
    }

    node_ptr conditional() {
        nesting guard(*this);
        node_ptr cond = logical_or();
        if (!is_punct("?")) return cond;
        ++at_;
        node n;
        n.kind = node_kind::conditional;
        n.offset = cond->offset;
        n.kids = {cond, conditional()};
        expect(":", "in 'condition ? a : b'");
        n.kids.push_back(conditional());
        return make(std::move(n), end_of_previous());
    }

    // The operator of `ops` at the cursor, or none.
    op_code match(const binary_level& ops) const {
        if (peek().kind != token_kind::punct) return op_code::none;
        for (const auto& o : ops)
            if (peek().text == o.text) return o.op;
        return op_code::none;
    }

    node_ptr make_binary(op_code op, node_ptr left, node_ptr right, bool word) {
        node n;
        n.kind = node_kind::binary;
        n.op = op;
        n.word = word;
        n.offset = left->offset;
        n.kids = {std::move(left), std::move(right)};
        return make(std::move(n), end_of_previous());
    }

    // Left-associative levels: or, and, the bitwise ones, shifts, additive, multiplicative.
    template <typename Next>
    node_ptr left_assoc(const binary_level& ops, Next next) {
        node_ptr left = (this->*next)();
        for (op_code op = match(ops); op != op_code::none; op = match(ops)) {
            const bool word = std::isalpha(static_cast<unsigned char>(peek().text[0])) != 0;
            ++at_;
            left = make_binary(op, left, (this->*next)(), word);
        }
        return left;
    }

    node_ptr logical_or() { return left_assoc(or_ops, &parser::logical_and); }
    node_ptr logical_and() { return left_assoc(and_ops, &parser::logical_not); }
    node_ptr bit_or() { return left_assoc(bit_or_ops, &parser::bit_xor); }
    node_ptr bit_xor() { return left_assoc(bit_xor_ops, &parser::bit_and); }
    node_ptr bit_and() { return left_assoc(bit_and_ops, &parser::shift); }
    node_ptr shift() { return left_assoc(shift_ops, &parser::additive); }
    node_ptr additive() { return left_assoc(additive_ops, &parser::multiplicative); }
    node_ptr multiplicative() { return left_assoc(multiplicative_ops, &parser::unary); }

    // Python's `not` binds looser than comparisons: `not a == b` is `not (a == b)`.
    node_ptr logical_not() {
        if (!is_punct("not")) return comparison();
        nesting guard(*this);
        node n;
        n.kind = node_kind::unary;
        n.op = op_code::logical_not;
        n.word = true;
        n.offset = peek().offset;
        ++at_;
        n.kids = {logical_not()};
        return make(std::move(n), end_of_previous());
    }

    // Comparisons chain as in Python: `a < b <= c` is `a < b and b <= c`, `b` shared (the
    // language has no side effects, so evaluating it twice is the same as once).
    node_ptr comparison() {
        const node_ptr first = bit_or();
        node_ptr left = first, chain;
        for (op_code op = match(comparison_ops); op != op_code::none; op = match(comparison_ops)) {
            ++at_;
            node_ptr right = bit_or();
            node_ptr link = make_binary(op, left, right, false);
            if (!chain) {
                chain = link;
            } else {
                node n;
                n.kind = node_kind::binary;
                n.op = op_code::logical_and;
                n.offset = first->offset;
                n.kids = {chain, link};
                chain = make(std::move(n), end_of_previous());
            }
            left = right;
        }
        return chain ? chain : first;
    }

    node_ptr unary() {
        nesting guard(*this);
        const token& t = peek();
        if (is_punct("-") || is_punct("+") || is_punct("!") || is_punct("~")) {
            ++at_;
            node n;
            n.kind = node_kind::unary;
            n.op = t.text == "-"   ? op_code::neg
                   : t.text == "+" ? op_code::plus
                   : t.text == "~" ? op_code::bit_not
                                   : op_code::logical_not;
            n.offset = t.offset;
            n.kids = {unary()};
            return make(std::move(n), end_of_previous());
        }
        return power();
    }

    // `**` binds tighter than a unary operator on its left and looser on its right, and groups
    // to the right: -2 ** 2 is -(2 ** 2), 2 ** -1 is 0.5, 2 ** 3 ** 2 is 2 ** 9.
    node_ptr power() {
        node_ptr base = primary();
        if (!is_punct("**")) return base;
        ++at_;
        return make_binary(op_code::pow, base, unary(), false);
    }

    node_ptr primary() {
        const token& t = peek();
        if (t.kind == token_kind::literal) {
            ++at_;
            node n;
            n.literal = t.literal;
            n.offset = t.offset;
            return make(std::move(n), end_of_previous());
        }
        if (t.kind == token_kind::ident) return identifier();
        if (is_punct("(")) {
            ++at_;
            node_ptr inner = conditional();
            expect(")", "to close '('");
            return inner;
        }
        fail(t, fmt::format("expected a number, name, string or '(', got {}", describe(t)));
    }

    node_ptr identifier() {
        const token& t = tokens_[at_++];
        node n;
        n.offset = t.offset;
        if (!is_punct("(")) {
            n.kind = node_kind::name;
            n.name = t.text;
            return make(std::move(n), end_of_previous());
        }
        n.kind = node_kind::call;
        n.function = find_function(t.text);
        if (n.function < 0)
            fail(t, fmt::format("unknown function '{}' (known: {})", t.text, function_names()));
        ++at_;
        if (!is_punct(")")) {
            n.kids.push_back(conditional());
            while (is_punct(",")) {
                ++at_;
                n.kids.push_back(conditional());
            }
        }
        expect(")", "to close the argument list");
        const function_info& f = function_at(n.function);
        const int count = static_cast<int>(n.kids.size());
        if (count < f.min_args || count > f.max_args) {
            fail(t, f.min_args == f.max_args
                        ? fmt::format("{}() takes {} argument{}, got {}", f.name, f.min_args,
                                      f.min_args == 1 ? "" : "s", count)
                        : fmt::format("{}() takes {} to {} arguments, got {}", f.name, f.min_args,
                                      f.max_args, count));
        }
        return make(std::move(n), end_of_previous());
    }

    std::vector<token> tokens_;
    const source_pos& pos_;
    std::size_t at_ = 0;
    int nesting_ = 0;
};

}  // namespace

node_ptr parse_tree(std::string_view text, const source_pos& pos) {
    return parser(text, pos).run();
}

}  // namespace hone::expr_detail
