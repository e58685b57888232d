// A JSON object of members known to be distinct, built in place. An ordered_json object built
// from an initializer list grows its vector of members one at a time and copies every member's
// value at each growth (a member with a const name cannot be moved): the records' samples and
// nested objects were copied several times each, most of the time of show --json and export.
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <utility>

#include "hone/compile_result.hpp"
#include "hone/job_result.hpp"

namespace hone {

class json_members {
  public:
    using ojson = nlohmann::ordered_json;
    explicit json_members(std::size_t n) : j_(ojson::object()) {
        j_.get_ref<ojson::object_t&>().reserve(n);
    }
    json_members& add(const char* name, ojson v) {
        j_.get_ref<ojson::object_t&>().emplace_back(name, std::move(v));
        return *this;
    }
    ojson done() { return std::move(j_); }

  private:
    ojson j_;
};

// A job's steps as the JSON reports and the T4 export's hone extension write them.
inline nlohmann::ordered_json steps_json(const job_steps& s) {
    return json_members(5)
        .add("load_s", s.load_s)
        .add("verify_s", s.verify_s)
        .add("warmup_s", s.warmup_s)
        .add("samples_s", s.samples_s)
        .add("waits", s.waits)
        .done();
}

// How a count the compiler or the driver did not report (-1) is written: as -1 (T4's hone
// extension, whose reader takes it back) or as null (the JSON reports).
enum class unknown_count { minus_one, null };

inline nlohmann::ordered_json count_json(int v, unknown_count unknown) {
    return v < 0 && unknown == unknown_count::null ? nlohmann::ordered_json(nullptr)
                                                   : nlohmann::ordered_json(v);
}

// ptxas's report of a compiled kernel (only its register count can be missing).
inline nlohmann::ordered_json resources_json(const resource_usage& u, unknown_count unknown) {
    return json_members(6)
        .add("registers", count_json(u.registers, unknown))
        .add("spill_store_bytes", u.spill_store_bytes)
        .add("spill_load_bytes", u.spill_load_bytes)
        .add("stack_bytes", u.stack_bytes)
        .add("shared_static_bytes", u.shared_static_bytes)
        .add("const_bytes", u.const_bytes)
        .done();
}

// The loaded function's attributes and occupancy (unknown where the module did not load).
inline nlohmann::ordered_json function_json(const job_result& g, unknown_count unknown) {
    const bool occupancy_known = g.active_blocks_per_sm >= 0 || unknown == unknown_count::minus_one;
    return json_members(6)
        .add("num_regs", count_json(g.num_regs, unknown))
        .add("local_bytes", count_json(g.local_bytes, unknown))
        .add("static_shared_bytes", count_json(g.static_shared_bytes, unknown))
        .add("max_threads_per_block", count_json(g.max_threads_per_block, unknown))
        .add("active_blocks_per_sm", count_json(g.active_blocks_per_sm, unknown))
        .add("occupancy", occupancy_known ? nlohmann::ordered_json(g.occupancy)
                                          : nlohmann::ordered_json(nullptr))
        .done();
}

}  // namespace hone
