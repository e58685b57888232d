#include "expr/parser.hpp"

#include <fmt/format.h>

#include "expr/functions.hpp"
#include "expr/lexer.hpp"

namespace hone::expr_detail {
namespace {

struct binary_level {
    std::initializer_list<std::pair<std::string_view, op_code>> ops;
};

// From the loosest binding to the tightest; ?: and unary operators are handled apart.
const binary_level levels[] = {
    {{{"||", op_code::logical_or}}},
    {{{"&&", op_code::logical_and}}},
    {{{"==", op_code::eq}, {"!=", op_code::ne}}},
    {{{"<", op_code::lt}, {"<=", op_code::le}, {">", op_code::gt}, {">=", op_code::ge}}},
    {{{"+", op_code::add}, {"-", op_code::sub}}},
    {{{"*", op_code::mul}, {"/", op_code::div}, {"%", op_code::mod}}},
};
constexpr int n_levels = static_cast<int>(std::size(levels));

class parser {
public:
    parser(std::string_view text, const source_pos& pos) : tokens_(lex(text, pos)), pos_(pos) {}

    node_ptr run() {
        if (peek().kind == token_kind::end) fail(peek(), "expected an expression, got nothing");
        node_ptr root = conditional();
        if (peek().kind != token_kind::end) fail(peek(), fmt::format("unexpected '{}' after the expression", peek().text));
        return root;
    }

private:
    // Counts recursion, so that "((((..." cannot exhaust the stack.
    struct nesting {
        parser& p;
        explicit nesting(parser& owner) : p(owner) {
            if (++p.nesting_ > max_depth) p.fail(p.peek(), fmt::format("expression nested too deeply (limit {})", max_depth));
        }
        ~nesting() { --p.nesting_; }
    };

    [[noreturn]] void fail(const token& t, const std::string& message) const {
        throw input_error(pos_at(pos_, t.offset), message);
    }
    const token& peek() const { return tokens_[at_]; }
    bool is_punct(std::string_view p) const { return peek().kind == token_kind::punct && peek().text == p; }
    std::string describe(const token& t) const { return t.kind == token_kind::end ? "the end" : fmt::format("'{}'", t.text); }

    void expect(std::string_view p, const char* context) {
        if (!is_punct(p)) fail(peek(), fmt::format("expected '{}' {}, got {}", p, context, describe(peek())));
        ++at_;
    }

    node_ptr make(node n, int end) {
        n.length = end - n.offset;
        for (const auto& k : n.kids) n.depth = std::max(n.depth, k->depth + 1);
        if (n.depth > max_depth) fail(tokens_[at_ > 0 ? at_ - 1 : 0], fmt::format("expression nested too deeply (limit {})", max_depth));
        return std::make_shared<const node>(std::move(n));
    }
    int end_of_previous() const { return tokens_[at_ - 1].offset + static_cast<int>(tokens_[at_ - 1].text.size()); }

    node_ptr conditional() {
        nesting guard(*this);
        node_ptr cond = binary(0);
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

    node_ptr binary(int level) {
        if (level == n_levels) return unary();
        node_ptr left = binary(level + 1);
        while (peek().kind == token_kind::punct) {
            op_code op = op_code::none;
            for (const auto& [text, code] : levels[level].ops)
                if (peek().text == text) op = code;
            if (op == op_code::none) break;
            ++at_;
            node n;
            n.kind = node_kind::binary;
            n.op = op;
            n.offset = left->offset;
            n.kids = {left, binary(level + 1)};
            left = make(std::move(n), end_of_previous());
        }
        return left;
    }

    node_ptr unary() {
        nesting guard(*this);
        const token& t = peek();
        if (is_punct("-") || is_punct("+") || is_punct("!")) {
            ++at_;
            node n;
            n.kind = node_kind::unary;
            n.op = t.text == "-" ? op_code::neg : t.text == "+" ? op_code::plus : op_code::logical_not;
            n.offset = t.offset;
            n.kids = {unary()};
            return make(std::move(n), end_of_previous());
        }
        return primary();
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
        if (n.function < 0) fail(t, fmt::format("unknown function '{}' (known: {})", t.text, function_names()));
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
                        ? fmt::format("{}() takes {} argument{}, got {}", f.name, f.min_args, f.min_args == 1 ? "" : "s", count)
                        : fmt::format("{}() takes {} to {} arguments, got {}", f.name, f.min_args, f.max_args, count));
        }
        return make(std::move(n), end_of_previous());
    }

    std::vector<token> tokens_;
    const source_pos& pos_;
    std::size_t at_ = 0;
    int nesting_ = 0;
};

}  // namespace

node_ptr parse_tree(std::string_view text, const source_pos& pos) { return parser(text, pos).run(); }

}  // namespace hone::expr_detail
