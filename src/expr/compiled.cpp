#include "expr/compiled.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <stdexcept>

#include "expr/eval.hpp"
#include "expr/functions.hpp"

namespace hone {
namespace {

using expr_detail::node;
using expr_detail::node_kind;
using expr_detail::op_code;
using expr_detail::site;
using opcode = compiled_expression::opcode;

const int fn_min = expr_detail::find_function("min");
const int fn_max = expr_detail::find_function("max");
const int fn_ceil_div = expr_detail::find_function("ceil_div");
const int fn_is_pow2 = expr_detail::find_function("is_pow2");

bool uses_only(const node& n, const bindings& constants) {
    bool only = true;
    expr_detail::visit_names(n, [&](const node& x) { only = only && constants.count(x.name) > 0; });
    return only;
}

int64_t floor_div(int64_t a, int64_t b) {
    const int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// The fast path of a binary operator on two integers (booleans as 0/1): false when the tree
// evaluator's slow path must decide (an error, or an operator without a fast path).
bool int_binary(op_code op, int64_t a, int64_t b, slot_value& out) {
    int64_t r = 0;
    switch (op) {
        case op_code::add:
            if (__builtin_add_overflow(a, b, &r)) return false;
            break;
        case op_code::sub:
            if (__builtin_sub_overflow(a, b, &r)) return false;
            break;
        case op_code::mul:
            if (__builtin_mul_overflow(a, b, &r)) return false;
            break;
        case op_code::div:
            if (b == 0 || b == -1) return false;
            r = a / b;
            break;
        case op_code::mod:
            if (b == 0 || b == -1) return false;
            r = a % b;
            break;
        case op_code::floordiv:
            if (b == 0 || b == -1) return false;
            r = floor_div(a, b);
            break;
        case op_code::bit_and:
            r = a & b;
            break;
        case op_code::bit_xor:
            r = a ^ b;
            break;
        case op_code::bit_or:
            r = a | b;
            break;
        case op_code::lt:
            out = slot_value::of_bool(a < b);
            return true;
        case op_code::le:
            out = slot_value::of_bool(a <= b);
            return true;
        case op_code::gt:
            out = slot_value::of_bool(a > b);
            return true;
        case op_code::ge:
            out = slot_value::of_bool(a >= b);
            return true;
        case op_code::eq:
            out = slot_value::of_bool(a == b);
            return true;
        case op_code::ne:
            out = slot_value::of_bool(a != b);
            return true;
        default:
            return false;
    }
    out = slot_value::of_int(r);
    return true;
}

}  // namespace

uint32_t string_table::intern(const std::string& s) {
    const auto [it, added] = ids_.emplace(s, static_cast<uint32_t>(strings_.size()));
    if (added) strings_.push_back(s);
    return it->second;
}

const uint32_t* string_table::find(const std::string& s) const {
    const auto it = ids_.find(s);
    return it == ids_.end() ? nullptr : &it->second;
}

slot_value to_slot(const value& v, string_table& strings) {
    slot_value s;
    if (const auto* i = std::get_if<int64_t>(&v)) return slot_value::of_int(*i);
    if (const auto* b = std::get_if<bool>(&v)) return slot_value::of_bool(*b);
    if (const auto* d = std::get_if<double>(&v)) {
        s.r = *d;
        s.kind = slot_value::real;
        return s;
    }
    s.i = strings.intern(std::get<std::string>(v));
    s.kind = slot_value::string;
    return s;
}

namespace {

// An evaluation's result as a slot. Operators and functions never make strings: a string
// result comes from a constant, already in the table (looked up, not added).
slot_value result_slot(const value& v, string_table& strings) {
    if (const auto* s = std::get_if<std::string>(&v)) {
        const uint32_t* id = strings.find(*s);
        if (!id) throw std::logic_error("compiled expression: a string that is in no table");
        slot_value out;
        out.i = *id;
        out.kind = slot_value::string;
        return out;
    }
    return to_slot(v, strings);
}

}  // namespace

value from_slot(const slot_value& s, const string_table& strings) {
    switch (s.kind) {
        case slot_value::integer:
            return s.i;
        case slot_value::boolean:
            return s.i != 0;
        case slot_value::real:
            return s.r;
        default:
            return strings.at(static_cast<uint32_t>(s.i));
    }
}

compiled_expression::compiled_expression(const expression& e,
                                         const std::vector<std::string>& slot_names,
                                         const bindings& constants, string_table& strings)
    : expr_(e), strings_(&strings) {
    for (const auto& name : e.names()) {
        const auto it = std::find(slot_names.begin(), slot_names.end(), name);
        if (it != slot_names.end()) {
            slots_used_.push_back(static_cast<uint32_t>(it - slot_names.begin()));
        } else if (!constants.count(name)) {
            use_fallback_ = true;  // the tree evaluator names it, with the known names
        }
    }
    std::sort(slots_used_.begin(), slots_used_.end());
    if (use_fallback_) {
        fallback_constants_ = constants;
        fallback_names_ = slot_names;
        // The tree evaluator's string results are literals or constants (slots' strings are in
        // the table already): added now, so that fallback() finds them without writing to the
        // table while it evaluates (a fuzzed `0 ? Q : "text"` found them missing).
        expr_detail::visit(*e.root_, [&](const node& n) {
            const auto* s = std::get_if<std::string>(&n.literal);
            if (s && n.kind == node_kind::literal) strings.intern(*s);
        });
        for (const auto& [name, v] : constants)
            if (const auto* str = std::get_if<std::string>(&v)) strings.intern(*str);
        return;
    }
    fallback_constants_ = constants;  // for folding; cleared below. Slots hide constants.
    for (const auto& name : slot_names) fallback_constants_.erase(name);
    emit(e.root_.get(), slot_names);
    fallback_constants_.clear();
}

void compiled_expression::emit(const void* raw, const std::vector<std::string>& slot_names) {
    const node& n = *static_cast<const node*>(raw);
    auto push_instr = [&](opcode c, uint32_t arg = 0, uint8_t op = 0, uint16_t argc = 0) {
        code_.push_back({c, op, argc, arg, &n});
    };
    auto grow = [&](std::ptrdiff_t by) {
        depth_ = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(depth_) + by);
        max_stack_ = std::max(max_stack_, depth_);
    };
    auto push_constant = [&](const value& v) {
        constants_.push_back(to_slot(v, *strings_));
        push_instr(opcode::push, static_cast<uint32_t>(constants_.size() - 1));
        grow(1);
    };
    // A subtree over constants alone is folded, unless it fails: then the failure happens at
    // evaluation, in the tree evaluator's order (a short circuit may skip it).
    if (n.kind != node_kind::literal && uses_only(n, fallback_constants_)) {
        try {
            push_constant(
                expr_detail::eval_node(n, fallback_constants_, expr_.pos(), expr_.text()));
            return;
        } catch (const input_error&) {
        }
    }
    switch (n.kind) {
        case node_kind::literal:
            push_constant(n.literal);
            return;
        case node_kind::name: {
            const auto it = std::find(slot_names.begin(), slot_names.end(), n.name);
            if (it == slot_names.end()) {
                push_constant(fallback_constants_.at(n.name));
            } else {
                push_instr(opcode::load, static_cast<uint32_t>(it - slot_names.begin()));
                grow(1);
            }
            return;
        }
        case node_kind::unary:
            emit(n.kids[0].get(), slot_names);
            push_instr(opcode::unary, 0, static_cast<uint8_t>(n.op));
            return;
        case node_kind::binary:
            emit(n.kids[0].get(), slot_names);
            if (n.op == op_code::logical_and || n.op == op_code::logical_or) {
                const std::size_t jump = code_.size();
                push_instr(n.op == op_code::logical_and ? opcode::and_jump : opcode::or_jump);
                grow(-1);
                emit(n.kids[1].get(), slot_names);
                push_instr(opcode::truth);
                code_[jump].arg = static_cast<uint32_t>(code_.size());
                return;
            }
            emit(n.kids[1].get(), slot_names);
            push_instr(opcode::binary, 0, static_cast<uint8_t>(n.op));
            grow(-1);
            return;
        case node_kind::conditional: {
            emit(n.kids[0].get(), slot_names);
            const std::size_t to_else = code_.size();
            push_instr(opcode::cond_jump);
            grow(-1);
            emit(n.kids[1].get(), slot_names);
            const std::size_t to_end = code_.size();
            push_instr(opcode::jump);
            grow(-1);
            code_[to_else].arg = static_cast<uint32_t>(code_.size());
            emit(n.kids[2].get(), slot_names);
            code_[to_end].arg = static_cast<uint32_t>(code_.size());
            return;
        }
        case node_kind::call:
            for (const auto& k : n.kids) emit(k.get(), slot_names);
            push_instr(opcode::call, 0, 0, static_cast<uint16_t>(n.kids.size()));
            grow(1 - static_cast<std::ptrdiff_t>(n.kids.size()));
            return;
    }
}

slot_value compiled_expression::fallback(const slot_value* slots) const {
    bindings scope = fallback_constants_;
    for (std::size_t i = 0; i < fallback_names_.size(); ++i)
        scope[fallback_names_[i]] = from_slot(slots[i], *strings_);
    return result_slot(expr_.eval(scope), *strings_);
}

slot_value compiled_expression::eval_slot(const slot_value* slots) const {
    if (use_fallback_) return fallback(slots);
    slot_value small[32];
    std::vector<slot_value> big;
    slot_value* st = small;
    if (max_stack_ > std::size(small)) {
        big.resize(max_stack_);
        st = big.data();
    }
    const std::string_view text = expr_.text();
    const source_pos& base = expr_.pos();
    auto at = [&](const instr& in) { return site{base, text, *static_cast<const node*>(in.n)}; };
    auto value_of = [&](const slot_value& s) { return from_slot(s, *strings_); };
    auto slot_of = [&](const value& v) { return result_slot(v, *strings_); };
    auto truth = [&](const slot_value& v, const instr& in, const char* what) {
        if (v.int_like()) return v.i != 0;
        return expr_detail::truth_of(value_of(v), at(in), what);
    };
    std::size_t sp = 0;
    const instr* code = code_.data();
    const std::size_t size = code_.size();
    for (std::size_t pc = 0; pc < size; ++pc) {
        const instr& in = code[pc];
        switch (in.code) {
            case opcode::push:
                st[sp++] = constants_[in.arg];
                break;
            case opcode::load:
                st[sp++] = slots[in.arg];
                break;
            case opcode::unary: {
                slot_value& a = st[sp - 1];
                const auto op = static_cast<op_code>(in.op);
                if (a.int_like()) {
                    if (op == op_code::logical_not) {
                        a = slot_value::of_bool(a.i == 0);
                        break;
                    }
                    if (op == op_code::bit_not) {
                        a = slot_value::of_int(~a.i);
                        break;
                    }
                    if (op == op_code::plus || a.i != INT64_MIN) {
                        a = slot_value::of_int(op == op_code::neg ? -a.i : a.i);
                        break;
                    }
                }
                a = slot_of(expr_detail::apply_unary(op, value_of(a), at(in)));
                break;
            }
            case opcode::binary: {
                --sp;
                slot_value& a = st[sp - 1];
                const slot_value& b = st[sp];
                const auto op = static_cast<op_code>(in.op);
                if (a.int_like() && b.int_like() && int_binary(op, a.i, b.i, a)) break;
                if (a.kind == slot_value::string && b.kind == slot_value::string &&
                    (op == op_code::eq || op == op_code::ne)) {
                    a = slot_value::of_bool((a.i == b.i) == (op == op_code::eq));
                    break;
                }
                a = slot_of(expr_detail::apply_binary(op, value_of(a), value_of(b), at(in)));
                break;
            }
            case opcode::and_jump:
            case opcode::or_jump: {
                const node& n = *static_cast<const node*>(in.n);
                const bool t = truth(st[sp - 1], in, expr_detail::logical_spelling(n));
                if (t == (in.code == opcode::or_jump)) {
                    st[sp - 1] = slot_value::of_bool(t);
                    pc = in.arg - 1;
                } else {
                    --sp;
                }
                break;
            }
            case opcode::truth: {
                const node& n = *static_cast<const node*>(in.n);
                st[sp - 1] =
                    slot_value::of_bool(truth(st[sp - 1], in, expr_detail::logical_spelling(n)));
                break;
            }
            case opcode::cond_jump:
                if (!truth(st[--sp], in, "?:")) pc = in.arg - 1;
                break;
            case opcode::jump:
                pc = in.arg - 1;
                break;
            case opcode::call: {
                sp -= in.argc;
                slot_value* args = st + sp;
                const int fn = static_cast<const node*>(in.n)->function;
                bool all_int = true;
                for (uint16_t k = 0; k < in.argc; ++k) all_int = all_int && args[k].int_like();
                if (all_int && (fn == fn_min || fn == fn_max)) {
                    int64_t best = args[0].i;
                    for (uint16_t k = 1; k < in.argc; ++k)
                        best = fn == fn_max ? std::max(best, args[k].i) : std::min(best, args[k].i);
                    args[0] = slot_value::of_int(best);
                } else if (all_int && fn == fn_ceil_div && args[1].i != 0 &&
                           !(args[0].i == INT64_MIN && args[1].i == -1)) {
                    const int64_t a = args[0].i, b = args[1].i, q = a / b;
                    args[0] = slot_value::of_int((a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q);
                } else if (all_int && fn == fn_is_pow2) {
                    args[0] =
                        slot_value::of_bool(args[0].i > 0 && (args[0].i & (args[0].i - 1)) == 0);
                } else {
                    std::vector<value> values;
                    values.reserve(in.argc);
                    for (uint16_t k = 0; k < in.argc; ++k) values.push_back(value_of(args[k]));
                    args[0] = slot_of(expr_detail::call_function(fn, values, at(in)));
                }
                ++sp;
                break;
            }
        }
    }
    return st[0];
}

value compiled_expression::eval(const slot_value* slots) const {
    return from_slot(eval_slot(slots), *strings_);
}

bool compiled_expression::eval_bool(const slot_value* slots) const {
    const slot_value v = eval_slot(slots);
    if (v.int_like()) return v.i != 0;
    fail_bool(v);
}

void compiled_expression::fail_bool(const slot_value& s) const {
    const value v = from_slot(s, *strings_);
    throw input_error(expr_.pos(), fmt::format("'{}' is the {} {}; expected a boolean",
                                               expr_.text(), type_name(v), display_text(v)));
}

}  // namespace hone
