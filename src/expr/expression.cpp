#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "expr/eval.hpp"
#include "expr/parser.hpp"
#include "hone/expr.hpp"

namespace hone {
namespace {

using expr_detail::node;
using expr_detail::node_kind;

// Text that parses back to `v`. INT64_MIN has no literal of its own.
std::string literal_text(const value& v) {
    if (const auto* i = std::get_if<int64_t>(&v); i && *i == INT64_MIN)
        return "(-9223372036854775807 - 1)";
    return display_text(v);
}

}  // namespace

expression::expression() : root_(std::make_shared<const node>()), text_("0") {}

expression expression::parse(std::string_view text, source_pos pos) {
    expression e;
    e.root_ = expr_detail::parse_tree(text, pos);
    e.text_ = std::string(text);
    e.pos_ = std::move(pos);
    return e;
}

expression expression::constant(value v) {
    expression e;
    node n;
    n.literal = v;
    e.text_ = literal_text(v);
    n.length = static_cast<int>(e.text_.size());
    e.root_ = std::make_shared<const node>(std::move(n));
    return e;
}

value expression::eval(const bindings& scope) const {
    return expr_detail::eval_node(*root_, scope, pos_, text_);
}

int64_t expression::eval_int(const bindings& scope) const {
    const value v = eval(scope);
    if (const auto* i = std::get_if<int64_t>(&v)) return *i;
    if (const auto* b = std::get_if<bool>(&v)) return *b;
    throw input_error(pos_, fmt::format("'{}' is the {} {}; expected an integer", text_,
                                        type_name(v), display_text(v)));
}

double expression::eval_real(const bindings& scope) const {
    const value v = eval(scope);
    if (const auto* d = std::get_if<double>(&v)) return *d;
    if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
    throw input_error(pos_, fmt::format("'{}' is the {} {}; expected a number", text_, type_name(v),
                                        display_text(v)));
}

bool expression::eval_bool(const bindings& scope) const {
    const value v = eval(scope);
    if (const auto* b = std::get_if<bool>(&v)) return *b;
    if (const auto* i = std::get_if<int64_t>(&v)) return *i != 0;
    throw input_error(pos_, fmt::format("'{}' is the {} {}; expected a boolean", text_,
                                        type_name(v), display_text(v)));
}

std::vector<std::string> expression::names() const {
    std::vector<std::string> out;
    visit_names(*root_, [&](const node& n) { out.push_back(n.name); });
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

source_pos expression::name_pos(std::string_view name) const {
    int offset = -1;
    visit_names(*root_, [&](const node& n) {
        if (offset < 0 && n.name == name) offset = n.offset;
    });
    return offset < 0 ? pos_ : expr_detail::pos_at(pos_, offset);
}

}  // namespace hone
