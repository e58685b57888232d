// Any text must parse or be refused with an input_error, and so must its evaluation; the
// value, written as a constant, must parse back to itself.
#include <cstddef>
#include <cstdint>
#include <string>

#include "hone/expr.hpp"

namespace {

const hone::bindings& scope() {
    static const hone::bindings b = {
        {"N", int64_t{1} << 24}, {"BLOCK", int64_t{256}}, {"ZERO", int64_t{0}},
        {"BIG", INT64_MAX},      {"SMALL", INT64_MIN},    {"HALF", 0.5},
        {"FLAG", true},          {"MEM", std::string("managed")}};
    return b;
}

void evaluate(const hone::expression& e) {
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
