// A JSON object of members known to be distinct, built in place. An ordered_json object built
// from an initializer list grows its vector of members one at a time and copies every member's
// value at each growth (a member with a const name cannot be moved): the records' samples and
// nested objects were copied several times each, most of the time of show --json and export.
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <utility>

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

}  // namespace hone
