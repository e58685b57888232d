// An expression compiled once for many evaluations over the same names: the search space
// evaluates each constraint for up to millions of configurations. Parameters are read from a
// slot array, every other name (problem sizes, device attributes) is folded in as a constant,
// integers and booleans take a fast path, and anything else (reals, strings, errors) goes
// through the tree evaluator's own operator functions, so values and error messages are the
// same as expression::eval's.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "hone/expr.hpp"
#include "hone/value.hpp"

namespace hone {

// Strings by number: slots compare them by id. One table serves a set of compiled expressions
// and the values put in their slots.
class string_table {
  public:
    uint32_t intern(const std::string& s);
    const std::string& at(uint32_t id) const { return strings_[id]; }
    const uint32_t* find(const std::string& s) const;

  private:
    std::vector<std::string> strings_;
    std::unordered_map<std::string, uint32_t> ids_;
};

// A value in a slot, 16 bytes: integers and booleans in `i` (booleans 0/1), reals in `r`,
// strings as an id of the string_table in `i`.
struct slot_value {
    enum kind_t : uint8_t { integer, boolean, real, string };
    union {
        int64_t i;
        double r;
    };
    kind_t kind;

    slot_value() : i(0), kind(integer) {}
    static slot_value of_int(int64_t v) {
        slot_value s;
        s.i = v;
        return s;
    }
    static slot_value of_bool(bool v) {
        slot_value s;
        s.i = v;
        s.kind = boolean;
        return s;
    }
    bool int_like() const { return kind <= boolean; }
};

slot_value to_slot(const value& v, string_table& strings);
value from_slot(const slot_value& s, const string_table& strings);

class compiled_expression {
  public:
    // Names in `slot_names` are read from slot i at evaluation; names in `constants` are
    // folded in. A name in neither makes the whole expression fall back to the tree
    // evaluator, which reports it as unknown. `strings` must outlive this object.
    compiled_expression(const expression& e, const std::vector<std::string>& slot_names,
                        const bindings& constants, string_table& strings);

    // As expression::eval / eval_bool on the scope constants + slots; throws the same
    // input_error.
    value eval(const slot_value* slots) const;
    bool eval_bool(const slot_value* slots) const;
    slot_value eval_slot(const slot_value* slots) const;

    const std::vector<uint32_t>& slots_used() const { return slots_used_; }  // sorted
    const expression& source() const { return expr_; }

    enum class opcode : uint8_t {
        push,
        load,
        unary,
        binary,
        and_jump,
        or_jump,
        truth,
        cond_jump,
        jump,
        call
    };
    struct instr {
        opcode code;
        uint8_t op;     // expr_detail::op_code for unary / binary
        uint16_t argc;  // call
        uint32_t arg;   // push: constant index; load: slot; jumps: target
        const void* n;  // the node, for error sites
    };

  private:
    void emit(const void* node, const std::vector<std::string>& slot_names);
    [[noreturn]] void fail_bool(const slot_value& v) const;
    slot_value fallback(const slot_value* slots) const;

    expression expr_;
    string_table* strings_;
    std::vector<instr> code_;
    std::vector<slot_value> constants_;
    std::vector<uint32_t> slots_used_;
    std::size_t max_stack_ = 0;
    std::size_t depth_ = 0;  // while emitting
    // Fallback only: the scope is rebuilt from these when a name is unknown.
    bool use_fallback_ = false;
    bindings fallback_constants_;
    std::vector<std::string> fallback_names_;
};

}  // namespace hone
