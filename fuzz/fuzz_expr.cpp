// Any text must parse or be refused with an input_error, and so must its evaluation; the
// value, written as a constant, must parse back to itself; the compiled form must give the same
// value or the same error as the tree evaluator.
#include <cstddef>
#include <cstdint>
#include <string>

#include "expr/compiled.hpp"
#include "hone/expr.hpp"

namespace {

const hone::bindings& scope() {
    static const hone::bindings b = {{"N", int64_t{1} << 24}, {"BLOCK", int64_t{256}},
                                     {"ZERO", int64_t{0}},    {"BIG", INT64_MAX},
                                     {"SMALL", INT64_MIN},    {"HALF", 0.5},
                                     {"FLAG", true},          {"MEM", std::string("managed")}};
    return b;
}

// The outcome of an evaluation: the value's text and type, or the error's full text.
template <class F>
std::string outcome(F&& f) {
    try {
        const hone::value v = f();
        return std::string(hone::type_name(v)) + " " + hone::display_text(v);
    } catch (const hone::input_error& err) {
        return std::string("error ") + err.what();
    }
}

// Half the names are parameters in slots, the other half constants, as the search space
// compiles constraints.
void compare_compiled(const hone::expression& e) {
    static const std::vector<std::string> slot_names = {"BLOCK", "HALF", "FLAG", "MEM"};
    hone::bindings constants = scope();
    for (const auto& n : slot_names) constants.erase(n);
    hone::string_table strings;
    std::vector<hone::slot_value> slots;
    for (const auto& n : slot_names) slots.push_back(hone::to_slot(scope().at(n), strings));
    const hone::compiled_expression c(e, slot_names, constants, strings);
    if (outcome([&] { return e.eval(scope()); }) != outcome([&] { return c.eval(slots.data()); }))
        __builtin_trap();
    const auto as_bool = [](auto&& f) -> hone::value { return f(); };
    if (outcome([&] { return as_bool([&] { return hone::value(e.eval_bool(scope())); }); }) !=
        outcome([&] { return as_bool([&] { return hone::value(c.eval_bool(slots.data())); }); }))
        __builtin_trap();
}

void evaluate(const hone::expression& e) {
    compare_compiled(e);
    const hone::value v = e.eval(scope());
    const hone::expression constant = hone::expression::constant(v);
    if (hone::expression::parse(constant.text(), e.pos()).eval({}) != v) __builtin_trap();
    e.names();
    try {
        e.eval_int(scope());
        e.eval_real(scope());
        e.eval_bool(scope());
    } catch (const hone::input_error&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        evaluate(hone::expression::parse(text, {"fuzz", 1, 1}));
    } catch (const hone::input_error&) {
    }
    return 0;
}
