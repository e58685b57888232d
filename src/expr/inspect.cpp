#include "expr/inspect.hpp"

#include "expr/parser.hpp"

namespace hone::expr_detail {
namespace {

void collect(const node& n, std::string_view text, std::vector<division>& out) {
    if (n.kind == node_kind::binary && n.op == op_code::div) {
        const node& l = *n.kids[0];
        const node& r = *n.kids[1];
        out.push_back({std::string(text.substr(l.offset, l.length)),
                       std::string(text.substr(r.offset, r.length))});
    }
    for (const auto& k : n.kids) collect(*k, text, out);
}

}  // namespace

std::vector<division> divisions(std::string_view text) {
    std::vector<division> out;
    collect(*parse_tree(text, {}), text, out);
    return out;
}

}  // namespace hone::expr_detail
